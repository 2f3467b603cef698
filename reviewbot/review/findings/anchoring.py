"""Anchor findings to lines GitHub accepts; the rest are reported outside the diff."""

from __future__ import annotations

from dataclasses import dataclass

from reviewbot.review.diff.parse import ParsedDiff
from reviewbot.review.findings.schema import SEVERITY_RANK, Finding

SNAP_DISTANCE = 5  # a finding this close to a hunk is placed on its nearest line, with a note


@dataclass(frozen=True)
class Anchored:
    """A finding whose (path, side, line[, start_line]) GitHub will accept as a review comment."""

    finding: Finding
    line: int
    start_line: int | None
    snapped_from: int | None = None


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
        valid = file.commentable(finding.side) if file is not None else frozenset()
        line, snapped = finding.line, None
        if line not in valid:
            nearest = min(valid, key=lambda n: (abs(n - line), n), default=None)
            if nearest is None or abs(nearest - line) > SNAP_DISTANCE:
                outside.append(finding)
                continue
            line, snapped = nearest, finding.line
        start = finding.start_line if snapped is None else None
        if start is not None and file is not None:
            same_hunk = file.hunk_index(finding.side, start) == file.hunk_index(finding.side, line)
            if start >= line or not same_hunk:
                start = None
        inline.append(Anchored(finding=finding, line=line, start_line=start, snapped_from=snapped))
    return Placement(inline=tuple(inline), outside=tuple(outside))


def _ordered(findings: list[Finding]) -> list[Finding]:
    """Most severe and most confident first, then by place, so output is deterministic."""
    return sorted(findings, key=lambda f: (SEVERITY_RANK[f.severity], -f.confidence, f.path, f.line))
