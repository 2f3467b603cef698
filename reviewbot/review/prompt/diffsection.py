"""Which changed files the diff section shows in full, in part, or not at all, within its share of the budget."""

from __future__ import annotations

from dataclasses import dataclass, replace

from reviewbot.review.context.index import is_test
from reviewbot.review.context.languages import language_for
from reviewbot.review.diff.parse import FileDiff, render_numbered
from reviewbot.review.prompt.sections import estimate_tokens

COMPACT_DELETION_LINES = 60  # a deleted file longer than this is named, not printed line by line
MIN_PARTIAL_TOKENS = 1_500


@dataclass(frozen=True)
class DiffEntry:
    path: str
    text: str
    tokens: int
    partial: str | None = None  # what was cut, when the file is shown in part


def _priority(file: FileDiff) -> tuple[int, int, str]:
    """Code before tests before everything else, deletions last; small diffs first so more files fit."""
    if file.status == "removed":
        rank = 3
    elif is_test(file.path):
        rank = 1
    elif language_for(file.path) is not None:
        rank = 0
    else:
        rank = 2
    return (rank, file.diff_chars, file.path)


def render_file(file: FileDiff) -> str:
    if file.status == "removed" and file.removed_lines > COMPACT_DELETION_LINES:
        return (f"--- {file.path}\n+++ /dev/null\n(file deleted: {file.removed_lines} lines, not shown; "
                "its definitions and their remaining users are in the context above)")
    return render_numbered(file)


def plan_diff(files: list[FileDiff], budget: int, cpt: float) -> tuple[list[DiffEntry], list[tuple[str, str]]]:
    """Files that fit (some cut to their first hunks) and the ones left out with the reason."""
    entries: list[DiffEntry] = []
    skipped: list[tuple[str, str]] = []
    left = budget
    for file in sorted(files, key=_priority):
        text = render_file(file)
        cost = estimate_tokens(text, cpt)
        if cost <= left:
            entries.append(DiffEntry(file.path, text, cost))
            left -= cost
            continue
        if left >= MIN_PARTIAL_TOKENS and len(file.hunks) > 1:
            entry = _partial(file, left, cpt)
            if entry is not None:
                entries.append(entry)
                left -= entry.tokens
                continue
        skipped.append((file.path, f"over the prompt's token budget ({cost:,} tokens of diff)"))
    return entries, skipped


def _partial(file: FileDiff, left: int, cpt: float) -> DiffEntry | None:
    """The first hunks that fit; the note tells the model (and the coverage report) what it did not see."""
    low, high = 0, len(file.hunks)
    while low < high:  # the most hunks whose rendering fits
        mid = (low + high + 1) // 2
        if estimate_tokens(render_numbered(replace(file, hunks=file.hunks[:mid])), cpt) + 30 <= left:
            low = mid
        else:
            high = mid - 1
    if low == 0:
        return None
    cut = f"first {low} of {len(file.hunks)} hunks shown (token budget)"
    text = render_numbered(replace(file, hunks=file.hunks[:low])) + f"\n({cut}; the rest was not reviewed)"
    return DiffEntry(file.path, text, estimate_tokens(text, cpt), cut)
