"""Anchor findings to lines GitHub accepts; the rest are reported outside the diff."""

from __future__ import annotations

from dataclasses import dataclass

from reviewbot.review.diff import ParsedDiff
from reviewbot.review.findings import SEVERITY_RANK, Finding


@dataclass(frozen=True)
class Anchored:
    """A finding whose (path, side, line[, start_line]) GitHub will accept as a review comment."""

    finding: Finding
    line: int
    start_line: int | None


@dataclass(frozen=True)
class Placement:
    inline: tuple[Anchored, ...]
    outside: tuple[Finding, ...]


def anchor(findings: list[Finding], diff: ParsedDiff) -> Placement:
    """Split findings into inline comments on commentable lines and findings outside the diff.

    A multi-line range is kept only when both ends lie in one hunk; otherwise it shrinks to its last line,
    because GitHub rejects the whole review (422) for one bad range.
    """
    inline: list[Anchored] = []
    outside: list[Finding] = []
    for finding in _ordered(findings):
        file = diff.file(finding.path)
        if file is None or finding.line not in file.commentable(finding.side):
            outside.append(finding)
            continue
        start = finding.start_line
        if start is not None:
            same_hunk = file.hunk_index(finding.side, start) == file.hunk_index(finding.side, finding.line)
            if start >= finding.line or not same_hunk:
                start = None
        inline.append(Anchored(finding=finding, line=finding.line, start_line=start))
    return Placement(inline=tuple(inline), outside=tuple(outside))


def _ordered(findings: list[Finding]) -> list[Finding]:
    """Most severe and most confident first, then by place, so output is deterministic."""
    return sorted(findings, key=lambda f: (SEVERITY_RANK[f.severity], -f.confidence, f.path, f.line))
