"""Edits applied exactly to the head's files: each old text must occur exactly once, or the fix is declined."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reviewbot.fixes.declined import Declined
from reviewbot.fixes.wire import Edit
from reviewbot.review.publish.markdown import code_span


@dataclass(frozen=True)
class Change:
    """The files a fix touches: their head text and their text after the edits, by path (sorted)."""

    before: Mapping[str, str]
    after: Mapping[str, str]

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(sorted(p for p in self.after if self.after[p] != self.before.get(p)))

    @property
    def empty(self) -> bool:
        return not self.paths


def apply_edits(head: Mapping[str, str | None], edits: Sequence[Edit]) -> Change:
    """Apply `edits` in order to the head's files (`None`: the file is not in the head). Declined unless every
    old text occurs exactly once in the file as the edits before it left it; an empty old text never matches
    (it would say nothing about where the new text goes)."""
    if not edits:
        raise Declined("no-edits")
    before: dict[str, str] = {}
    after: dict[str, str] = {}
    for number, edit in enumerate(edits, start=1):
        if edit.path not in after:
            text = head.get(edit.path)
            if text is None:
                raise Declined("does-not-apply", f"edit {number}: {code_span(edit.path)} is not a file of the head")
            before[edit.path] = after[edit.path] = text
        current = after[edit.path]
        found = _occurrences(current, edit.old)
        if found != 1:
            where = "does not occur" if found == 0 else f"occurs {found} times"
            raise Declined("does-not-apply", f"edit {number}: its old text {where} in {code_span(edit.path)}")
        after[edit.path] = current.replace(edit.old, edit.new, 1)
    change = Change(before, after)
    if change.empty:
        raise Declined("no-edits", "the edits leave every file as it was")
    return change


def _occurrences(text: str, old: str, stop: int = 1_000) -> int:
    """Where `old` starts in `text`, overlapping ones counted ("aa" is twice in "aaa": which one is meant is
    ambiguous), at most `stop`. An empty old text never matches."""
    count, start = 0, text.find(old) if old else -1
    while start != -1 and count < stop:
        count, start = count + 1, text.find(old, start + 1)
    return count
