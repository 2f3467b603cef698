"""A pattern as a proposed change to `.github/reviewbot.yml`: the edited file, the branch, the pull request's title
and its body with the evidence (pure). Logins are code spans, so nobody is pinged."""

from __future__ import annotations

import time
from dataclasses import dataclass

from reviewbot.learn.config_edit import add_list_item, set_mapping_entry
from reviewbot.learn.patterns import Pattern
from reviewbot.review.config import CONFIG_PATH, parse_config
from reviewbot.review.publish.safemd import code_span

BRANCH_PREFIX = "reviewbot/learn/"
STRICTER = {"nit": "minor", "minor": "major", "major": "critical"}


@dataclass(frozen=True)
class Proposal:
    branch: str
    title: str
    body: str
    path: str  # the file changed
    text: str  # its new text


def propose(pattern: Pattern, config_text: str, *, public: bool) -> Proposal | None:
    """The change `pattern` asks for, made to `config_text` (the default branch's file, "" when absent); None
    when the file already says it or cannot be edited safely."""
    config = parse_config(config_text).config
    glob = f"{pattern.folder}/**" if pattern.folder else "**"
    why = _why(pattern)
    comment = f"Proposed by reviewbot: {why}"
    if pattern.kind == "dismissed_rule":
        item = {"rule": pattern.rule, "path": f"{pattern.folder}/*", "reason": f"dismissed {pattern.count} times"}
        if any(r.rule == pattern.rule and r.path == item["path"] for r in config.learnings):
            return None
        change, text = f"a `learnings` rule for `{pattern.folder}/`", add_list_item(config_text, "learnings", item,
                                                                                   comment)
    elif pattern.kind == "low_resolution":
        current = config.threshold_for(pattern.category)
        stricter = STRICTER.get(current)
        if stricter is None:
            return None
        change = f"a `severity_thresholds` entry (`{pattern.category}` findings from `{stricter}` up)"
        text = set_mapping_entry(config_text, "severity_thresholds", pattern.category, stricter, comment)
    else:
        change = f"a `path_instructions` line for `{glob}`"
        text = set_mapping_entry(config_text, "path_instructions", glob, _instruction(pattern), comment)
    if text is None or text == config_text:
        return None
    title = f"reviewbot: {change}"
    return Proposal(BRANCH_PREFIX + pattern.hash, title[:200], _body(pattern, why, change, public), CONFIG_PATH,
                    text)


def _why(p: Pattern) -> str:
    where = f"in {p.folder}/" if p.folder else "in this repository"
    if p.kind == "dismissed_rule":
        return f"the same finding was dismissed {p.count} times {where} by {len(p.people)} people"
    if p.kind == "dismissed_category":
        return f"{p.category} findings were dismissed {p.count} times {where} by {len(p.people)} people"
    if p.kind == "low_resolution":
        return f"{p.fixed} of {p.count} {p.category} findings were fixed ({p.fixed / max(p.count, 1):.0%})"
    return f"{p.count} {p.category} comments {where} drew more 👎 than 👍"


def _instruction(p: Pattern) -> str:
    if p.kind == "thumbs_down":
        return (f"People here found most {p.category} comments unhelpful: post a {p.category} finding only when it "
                "is clearly worth the author's time.")
    return (f"The team has repeatedly dismissed {p.category} findings in these files: post one only when it is "
            "clearly a real problem here.")


def _body(p: Pattern, why: str, change: str, public: bool) -> str:
    lines = [f"reviewbot proposes {change} in {code_span(CONFIG_PATH)}, because {_spans(why, p)}.", ""]
    if p.rule:
        lines += [f"The rule: {code_span(p.rule)}.", ""]
    if p.kind == "low_resolution" and p.evidence:
        lines += [f"The latest {len(p.evidence)} of the {p.count - p.fixed} findings not fixed:", ""]
    if p.evidence:
        lines += ["| Pull request | File | Who | When | |", "|---|---|---|---|---|"]
    for e in p.evidence:
        what = e.note or ("" if public or not e.title else code_span(e.title))  # titles stay off public pages
        who = code_span(e.by) if e.by else ""
        when = time.strftime("%Y-%m-%d", time.gmtime(e.at)) if e.at else ""
        lines.append(f"| #{e.pr} | {code_span(e.path)} | {who} | {when} | {what} |")
    lines += ["", "Merge it to keep this rule in the repository, where everyone sees and reviews it; edit it first "
              "if it is too broad. Close it and reviewbot will not propose it again."]
    return "\n".join(lines).rstrip() + "\n"


def _spans(why: str, p: Pattern) -> str:
    return why.replace(f"in {p.folder}/", f"in {code_span(p.folder + '/')}") if p.folder else why


def is_proposal_branch(ref: str) -> bool:
    return ref.startswith(BRANCH_PREFIX)

