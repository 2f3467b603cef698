"""A change as text: the unified diff `git apply` takes (and a review reads), and its hunks as line ranges."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from reviewbot.fixes.edits import Change

NO_NEWLINE = "\\ No newline at end of file\n"


@dataclass(frozen=True)
class Hunk:
    """Head lines `start..end` (1-based, inclusive) of `path` become `lines`: what one suggestion replaces."""

    path: str
    start: int
    end: int
    lines: tuple[str, ...]


def unified_diff(change: Change, context: int = 3) -> str:
    """`diff --git` sections for every changed file, as `git apply` and the review's diff parser read them."""
    out: list[str] = []
    for path in change.paths:
        before = change.before[path].splitlines(keepends=True)
        after = change.after[path].splitlines(keepends=True)
        body = list(difflib.unified_diff(before, after, f"a/{path}", f"b/{path}", n=context))
        if not body:
            continue
        out.append(f"diff --git a/{path} b/{path}\n")
        for line in body:
            out.append(line if line.endswith("\n") else line + "\n" + NO_NEWLINE)
    return "".join(out)


def changed_lines(before: str, after: str) -> int:
    """Removed plus added lines."""
    matcher = difflib.SequenceMatcher(None, before.split("\n"), after.split("\n"), autojunk=False)
    return sum((i2 - i1) + (j2 - j1) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal")


def hunks(change: Change) -> tuple[Hunk, ...]:
    """Each changed region as head lines and their replacement. A pure insertion takes the line before it (or,
    at the top of a file, the line after it) along, since a suggestion must replace at least one line."""
    out: list[Hunk] = []
    for path in change.paths:
        before, after = change.before[path].split("\n"), change.after[path].split("\n")
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        for group in matcher.get_grouped_opcodes(0):
            i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
            new = after[j1:j2]
            if i1 == i2 and i1 > 0:
                i1, new = i1 - 1, [before[i1 - 1], *new]
            elif i1 == i2:
                i2, new = 1, [*new, before[0]]
            out.append(Hunk(path, i1 + 1, i2, tuple(new)))
    return tuple(out)
