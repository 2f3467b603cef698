"""The dismissal corpus: 142 replies written the way people write them; only an explicit command dismisses."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from reviewbot.commands.decisions import DISMISSALS, parse_thread_command
from reviewbot.webhooks.events import Ignored, decide
from reviewbot.webhooks.review_comments import ThreadReply

CORPUS: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parents[1] / "corpus" / "dismissal_replies.yaml")
                                              .read_text(encoding="utf-8"))
FIXTURE = Path(__file__).parents[1] / "fixtures" / "webhooks" / "pull_request_review_comment.created.json"


def through_the_webhook(body: str) -> ThreadReply | Ignored:
    """The decision the webhook makes for this reply under one of reviewbot's findings."""
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    data["comment"] |= {"body": body}
    decision = decide("pull_request_review_comment", data, ["reviewbot"])
    assert isinstance(decision, ThreadReply | Ignored)
    return decision


def test_the_corpus_is_large_and_varied() -> None:
    kinds = Counter(entry["kind"] for entry in CORPUS)
    assert len(CORPUS) >= 80
    assert {"affirmation", "negation", "question", "quote", "code", "sarcasm", "language", "command"} <= set(kinds)
    assert sum(entry["expect"] in DISMISSALS for entry in CORPUS) >= 10
    assert len(CORPUS) == 142  # the figure docs/security.md quotes


def test_no_reply_without_a_command_dismisses_and_every_command_is_read() -> None:
    false_dismissals, missed = [], []
    for entry in CORPUS:
        decision = through_the_webhook(entry["text"])
        verb = decision.command if isinstance(decision, ThreadReply) else ""
        if verb in DISMISSALS and entry["expect"] != verb:
            false_dismissals.append(entry["text"])
        if (entry["expect"] or "") != verb:
            missed.append((entry["text"], verb))
    assert false_dismissals == []
    assert missed == []


@pytest.mark.parametrize(("text", "reason"), [
    ("@reviewbot dismiss: fixture data, never deployed", "fixture data, never deployed"),
    ("@reviewbot won’t fix — legacy module", "legacy module"),
    ("@reviewbot false positive: `total()` is only called with items", "`total()` is only called with items"),
    ("@reviewbot dismiss", ""),
    ("@reviewbot dismiss\nthe lock is held\nby the caller", "the lock is held by the caller"),
    ("@reviewbot dismiss: see https://example.com/a?b=1", "see https://example.com/a?b=1"),
])
def test_a_commands_reason_is_the_persons_own_words(text: str, reason: str) -> None:
    command = parse_thread_command(text, ["reviewbot"])
    assert command is not None and command.reason == reason


def test_a_reply_without_a_mention_never_reaches_the_worker() -> None:
    for entry in CORPUS:
        if "@reviewbot" not in entry["text"].lower():
            assert isinstance(through_the_webhook(entry["text"]), Ignored), entry["text"]
