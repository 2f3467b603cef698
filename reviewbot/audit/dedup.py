"""Candidates of all chunks merged by place before verification, pure: one verification and one report entry per
distinct finding, however many chunks saw the code."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from reviewbot.review.findings.fingerprints import code_key
from reviewbot.review.findings.schema import SEVERITY_RANK, Finding

# Lines: two reports of one weakness (same CWE) in one file are one finding when their ranges overlap or the next
# starts at most NEAR lines after the previous ends (at most one line between them): models anchor one bug a line
# or two apart. Farther apart they are two findings even with identical code (a copy-pasted query in two
# functions is two bugs, told apart in SARIF by occurrence).
NEAR = 2


@dataclass(frozen=True)
class Distinct:
    """One finding as reported once: the strongest report, its code fingerprint, and every chunk that saw it.
    `owner` is the chunk that verifies it: the one auditing its file (its prompt shows the whole file and is
    already cached), else the first that reported it."""

    finding: Finding
    fingerprint: str
    chunks: tuple[int, ...]
    owner: int


def kind(finding: Finding) -> str:
    """What a finding is about: its CWE when it has one (two chunks may disagree on the category), else the
    category."""
    return finding.cwe or finding.category


def fingerprint_of(finding: Finding, read: Callable[[str], str | None]) -> str:
    """(path, CWE or category, normalised code of the anchored lines); the title when the file is unreadable."""
    text = read(finding.path)
    first = finding.start_line or finding.line
    if text is None:
        return code_key(finding.path, kind(finding), [finding.title])
    lines = text.split("\n")[first - 1:finding.line]
    return code_key(finding.path, kind(finding), lines or [f"line {finding.line}"])


def dedupe(candidates: Sequence[tuple[int, Finding]], read: Callable[[str], str | None],
           home: Mapping[str, int] | None = None) -> list[Distinct]:
    """Merge candidates (chunk index, finding) that point at the same place for the same weakness: overlapping or
    neighbouring (NEAR) line ranges of one file with the same CWE. Equal code fingerprints alone do not merge:
    identical lines far apart stay two findings. The result is ordered by file, line and CWE."""
    ordered = sorted(candidates, key=lambda c: (c[1].path, kind(c[1]), c[1].start_line or c[1].line, c[1].line,
                                                c[0]))
    prints = [fingerprint_of(f, read) for _, f in ordered]
    parent = list(range(len(ordered)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    reach = -1  # the end line of the run of overlapping ranges that ordered[i - 1] belongs to
    for i, (_, finding) in enumerate(ordered):
        if i and _same_place(ordered[i - 1][1], finding) and (finding.start_line or finding.line) <= reach + NEAR:
            parent[root(i)] = root(i - 1)
            reach = max(reach, finding.line)
        else:
            reach = finding.line
    groups: dict[int, list[int]] = {}
    for i in range(len(ordered)):
        groups.setdefault(root(i), []).append(i)
    out = []
    for members in groups.values():
        best = min(members, key=lambda i: (SEVERITY_RANK[ordered[i][1].severity], -ordered[i][1].confidence, i))
        finding = ordered[best][1]
        chunks = tuple(sorted({ordered[i][0] for i in members}))
        own = (home or {}).get(finding.path)
        out.append(Distinct(finding, prints[best], chunks, chunks[0] if own is None else own))
    return sorted(out, key=lambda d: (d.finding.path, d.finding.line, kind(d.finding), d.fingerprint))


def same_finding(a: Finding, b: Finding) -> bool:
    """Whether `dedupe` would merge the two on their own: one file, one weakness, ranges overlapping or NEAR."""
    first, second = sorted((a, b), key=lambda f: (f.start_line or f.line, f.line))
    return _same_place(a, b) and (second.start_line or second.line) <= first.line + NEAR


def _same_place(a: Finding, b: Finding) -> bool:
    return a.path == b.path and kind(a) == kind(b)
