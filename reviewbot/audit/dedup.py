"""Candidates of all chunks merged by code fingerprint before verification, pure: one verification and one report
entry per distinct finding, however many chunks saw the code."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from reviewbot.review.findings.fingerprints import code_key
from reviewbot.review.findings.schema import SEVERITY_RANK, Finding

NEAR = 2  # lines: two reports of one weakness in one file this close are one finding


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
    """Merge candidates (chunk index, finding) that point at the same code for the same weakness: equal code
    fingerprints, or overlapping line ranges of one file with the same CWE (models anchor one bug a line or
    two apart). The result is ordered by file, line and CWE."""
    ordered = sorted(candidates, key=lambda c: (c[1].path, kind(c[1]), c[1].start_line or c[1].line, c[1].line,
                                                c[0]))
    prints = [fingerprint_of(f, read) for _, f in ordered]
    parent = list(range(len(ordered)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_of: dict[str, int] = {}
    reach = -1  # the end line of the run of overlapping ranges that ordered[i - 1] belongs to
    for i, (_, finding) in enumerate(ordered):
        at = first_of.setdefault(prints[i], i)
        parent[root(i)] = root(at)
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


def _same_place(a: Finding, b: Finding) -> bool:
    return a.path == b.path and kind(a) == kind(b)
