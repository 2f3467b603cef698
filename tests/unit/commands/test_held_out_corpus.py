"""The held-out corpus through the webhook's real decisions: no prose dismisses, commands are read (`pytest -s`)."""

# 422 replies in 11 languages, written from the documented grammar by someone who read no code; the figures are
# quoted in docs/security.md ("How replies are read").

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from reviewbot.webhooks.events import CommentCommand, decide
from reviewbot.webhooks.review_comments import ThreadReply

CORPUS: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parents[2] / "corpus" / "held_out_replies.yaml")
                                              .read_text(encoding="utf-8"))
FIXTURES = Path(__file__).parents[2] / "fixtures" / "webhooks"
SLUG = "reviewbot-test"
# The corpus names verbs as people write them; the decisions carry the jobs' names.
VERBS = {"won't fix": "wont-fix", "false positive": "false-positive"}
REMOVES = {"dismiss", "wont-fix", "false-positive", "forget"}  # a learning made or removed without a model
# Expectations that contradict the documented grammar, with the reason; the parser is not bent to them.
CONTRADICTIONS: dict[str, str] = {
    "en-noun-05": "`@reviewbot audit findings from last week are still open` expects no command, but the documented "
                  "grammar is `audit [full] [PATH…]`: every word after `audit` is a path as written (folders are "
                  "written bare: `audit src`), so it reads an audit of seven paths; none exists, so the audit plans "
                  "no chunk and asks no model. Telling a folder from an English word would need a dictionary.",
}


@dataclass
class Figures:
    prose_read_as_removal: list[str] = field(default_factory=list)  # must stay empty
    prose_read_as_command: list[str] = field(default_factory=list)
    helped: int = 0  # pull request comments addressed to the App without a command: they get the help, run nothing
    commands_missed: list[str] = field(default_factory=list)
    wrong_reason: list[str] = field(default_factory=list)
    missed_by_class: Counter[str] = field(default_factory=Counter)
    commands: int = 0
    prose: int = 0


def decision(entry: dict[str, Any]) -> tuple[str, str, tuple[str, ...]]:
    """(verb, "none" or "unknown", reason, audit args) as the webhook decides for this reply, with the tests' slug."""
    body = re.sub(r"@reviewbot(?![\w-])", lambda m: f"@{SLUG}", entry["text"], flags=re.IGNORECASE)
    if entry["where"] == "thread":
        data: dict[str, Any] = json.loads((FIXTURES / "pull_request_review_comment.created.json").read_text())
        data["comment"] |= {"body": body}
        reply = decide("pull_request_review_comment", data, [SLUG])
        return (reply.command or "none", reply.reason, ()) if isinstance(reply, ThreadReply) else ("none", "", ())
    data = json.loads((FIXTURES / "issue_comment.created.json").read_text())
    data["comment"] |= {"body": body}
    command = decide("issue_comment", data, [SLUG])
    if not isinstance(command, CommentCommand):
        return "none", "", ()
    if command.command.verb == "unknown":
        return "unknown", "", ()  # addressed without a command: the App answers with its help and runs nothing
    return command.command.verb, "", command.command.args


def measure() -> Figures:
    figures = Figures()
    for entry in CORPUS:
        expect = VERBS.get(entry["expect"], entry["expect"])
        verb, reason, args = decision(entry)
        label = f"{entry['id']}: expected {expect}, read {verb}"
        figures.helped += verb == "unknown"
        verb = "none" if verb == "unknown" else verb
        if entry["id"] in CONTRADICTIONS:
            continue
        if expect == "none":
            figures.prose += 1
            if verb in REMOVES:
                figures.prose_read_as_removal.append(label)
            if verb != "none":
                figures.prose_read_as_command.append(label)
        else:
            figures.commands += 1
            if verb != expect:
                figures.commands_missed.append(label)
                figures.missed_by_class[entry.get("note", "").split(";")[0]] += 1
            elif " ".join(str(entry.get("reason", "")).split()) != reason and verb in REMOVES:
                figures.wrong_reason.append(f"{entry['id']}: expected {entry.get('reason')!r}, read {reason!r}")
            elif "args" in entry and tuple(w.strip("/") for w in str(entry["args"]).split()) != args:
                figures.wrong_reason.append(f"{entry['id']}: expected args {entry['args']!r}, read {args!r}")
    return figures


def test_the_held_out_corpus_meets_the_issues_targets() -> None:
    figures = measure()
    print(f"\nheld-out: {figures.prose} replies without a command: {len(figures.prose_read_as_removal)} read as a "
          f"dismissal or forget, {len(figures.prose_read_as_command)} as any command; {figures.commands} commands "
          f"({len(CONTRADICTIONS)} contradicting the grammar left out): {len(figures.commands_missed)} missed "
          f"{dict(figures.missed_by_class)}; {len(figures.wrong_reason)} read with another reason or arguments; "
          f"{figures.helped} comments answered with the help")
    for line in figures.prose_read_as_command + figures.commands_missed + figures.wrong_reason:
        print("  ", line)
    assert figures.prose_read_as_removal == []  # the issue's target: never a dismissal or a forget from prose
    assert len(figures.commands_missed) <= 0.05 * figures.commands  # the issue's target: at most 5% missed
    # Met on the final run (the first run read two replies as commands and missed one): kept as regressions
    assert figures.prose_read_as_command == [] and figures.commands_missed == [] and figures.wrong_reason == []
    assert figures.prose + figures.commands + len(CONTRADICTIONS) == len(CORPUS) == 422
