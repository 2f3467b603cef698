"""The finding a fix is for, read back from reviewbot's own signed review comment (its marker and header)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reviewbot.review.findings.fingerprints import read_marker
from reviewbot.review.publish.header import read_header
from reviewbot.review.publish.markdown import UNVERIFIED

MAX_BODY_CHARS = 4_000
SEVERITIES = ("critical", "major", "minor", "nit")


@dataclass(frozen=True)
class FixTarget:
    """One finding to fix: where it points at the head, what it says, and which files a fix may touch."""

    fingerprint: str
    path: str
    start: int
    end: int
    severity: str
    category: str
    title: str
    body: str  # the comment as posted (untrusted: the model wrote it from the pull request)
    cwe: str = ""
    comment_id: int = 0  # the thread's first comment, where the reply goes
    also: tuple[str, ...] = ()  # files the finding's evidence names (a caller fixed with its callee)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((self.path, *self.also)))


def from_comment(comment: Mapping[str, Any], key: bytes) -> FixTarget | None:
    """The finding of one of reviewbot's review comments; None when its marker is not authentic (a comment by
    someone else, or signed with another secret), when it is labelled unverified, or when it no longer points at
    a line of the head (GitHub's `line` is null once the code moved away)."""
    body = str(comment.get("body") or "")
    keys = read_marker(body, key)
    header = read_header(body)
    if keys is None or header is None or header.severity not in SEVERITIES:
        return None
    if f" · {UNVERIFIED} · " in body.split("\n", 1)[0]:
        return None  # only verified findings are fixed: an unverified one may be wrong
    line, start = comment.get("line"), comment.get("start_line")
    path = str(comment.get("path") or "")
    if not isinstance(line, int) or line < 1 or not path or comment.get("side", "RIGHT") != "RIGHT":
        return None
    first = start if isinstance(start, int) and 1 <= start <= line else line
    shown = body.rstrip().rsplit("\n", 1)[0]  # without the marker line
    return FixTarget(fingerprint=keys[0], path=path, start=first, end=line, severity=header.severity,
                     category=header.category, title=header.title, body=shown[:MAX_BODY_CHARS], cwe=header.cwe,
                     comment_id=int(comment.get("id") or 0))


def by_severity(targets: list[FixTarget], limit: int) -> list[FixTarget]:
    """The most severe first, at most `limit`: what a pull-request-wide fix takes on."""
    ranked = sorted(targets, key=lambda t: (SEVERITIES.index(t.severity), t.path, t.start))
    return ranked[:limit]
