"""reviewbot's open code-scanning alerts beside a review, pure: which finding is already an alert, and which alert's
code the pull request changes without the review finding it again."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the webhook reads the tool's name without loading the diff parser
    from reviewbot.review.diff.parse import FileDiff, ParsedDiff

TOOL_NAME = "reviewbot"  # SARIF's `tool.driver.name`: what GitHub calls the tool of reviewbot's alerts
RULE_PREFIX = "reviewbot/"
UNCLASSIFIED = "reviewbot/security"  # a finding without a CWE id


def alert_rule_id(cwe: str | None) -> str:
    """The SARIF `ruleId` an audit gives a finding, which GitHub keeps as the alert's rule: the CWE alone."""
    return f"{RULE_PREFIX}{cwe.lower()}" if cwe else UNCLASSIFIED


@dataclass(frozen=True)
class Alert:
    """One code-scanning alert as GitHub lists it (its most recent instance): the number people see, the rule
    (what SARIF gave GitHub), and the lines on the ref it was listed for."""

    number: int
    rule_id: str
    path: str
    start_line: int
    end_line: int
    html_url: str = ""


@dataclass(frozen=True)
class Fixed:
    """An alert whose code the pull request changes and the review did not find again; `verified` when the model
    read that file in a security review (otherwise the summary says "may fix")."""

    alert: Alert
    verified: bool


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _file_of(diff: ParsedDiff, path: str) -> FileDiff | None:
    return diff.file(path) or next((f for f in diff.files if f.old_path == path), None)


def to_head(file: FileDiff | None, old: int) -> int | None:
    """Where base line `old` is at the head: None when the pull request deletes or rewrites it."""
    if file is None:
        return old
    shift = 0
    for hunk in file.hunks:
        if old < hunk.old_start:
            break
        inside = next((ln for ln in hunk.lines if ln.old == old), None)
        if inside is not None:
            return inside.new if inside.kind == " " else None
        shift = hunk.new_start + hunk.new_len - (hunk.old_start + hunk.old_len)
    return old + shift


def head_range(alert: Alert, diff: ParsedDiff) -> tuple[int, int] | None:
    """The alert's lines at the head, where at least one of them survives; None when all are gone."""
    file = _file_of(diff, alert.path)
    if file is not None and file.status == "removed":
        return None
    kept = [n for old in range(alert.start_line, alert.end_line + 1) if (n := to_head(file, old)) is not None]
    return (min(kept), max(kept)) if kept else None


def touched(alert: Alert, diff: ParsedDiff) -> bool:
    """Whether the pull request deletes or rewrites any of the alert's lines."""
    file = _file_of(diff, alert.path)
    if file is None:
        return False
    return file.status == "removed" or any(to_head(file, old) is None
                                           for old in range(alert.start_line, alert.end_line + 1))


def known_alert(path: str, cwe: str | None, start: int, end: int, alerts: Iterable[Alert],
                diff: ParsedDiff) -> Alert | None:
    """The open alert a finding (head lines start..end, RIGHT side) already is: the same rule, the same file, and
    overlapping lines once the alert's base lines are moved to the head."""
    rule = alert_rule_id(cwe)
    for alert in alerts:
        if alert.rule_id != rule or alert.path != path:
            continue
        where = head_range(alert, diff)
        if where is not None and _overlaps(where, (start, end)):
            return alert
    return None


def fixed_alerts(alerts: Iterable[Alert], diff: ParsedDiff, matched: Iterable[int], *,
                 reviewed: Sequence[str], security: bool) -> list[Fixed]:
    """Alerts whose lines this pull request deletes or rewrites, and that no finding of the review is (`matched`:
    the numbers findings matched). Verified only when the model read the file in a review that looked for
    security bugs: otherwise nothing says the rewritten code is safe."""
    seen = set(matched)
    return [Fixed(a, security and a.path in reviewed) for a in alerts
            if a.number not in seen and touched(a, diff)]
