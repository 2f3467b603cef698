"""The remembered layout: which context blocks a review sent, in which order, so the next one keeps the prefix."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from reviewbot.review.context.index import is_test
from reviewbot.review.context.languages import language_for

Ranges = tuple[tuple[int, int], ...] | None  # None: the whole file


@dataclass(frozen=True)
class BlockSpec:
    """How to render one context block again, byte for byte, from the base tree."""

    path: str
    ranges: Ranges
    reason: str

    @property
    def id(self) -> str:
        where = "whole" if self.ranges is None else ",".join(f"{a}-{b}" for a, b in self.ranges)
        return f"ctx:{self.path}:{where}"


@dataclass(frozen=True)
class Layout:
    """What one review sent: context blocks in order, diff files in order, and a digest of every prompt block.

    Context added by a re-review goes after the diff files that did not change (`late_from` and `diff_split`
    say where), so a new caller found after a push does not move the cached diff behind it."""

    context: tuple[BlockSpec, ...] = ()
    diff_order: tuple[str, ...] = ()
    blocks: tuple[tuple[str, str, int], ...] = ()  # (block id, digest, tokens) in prompt order
    late_from: int | None = None  # context[late_from:] sit between diff_order[:diff_split] and the rest
    diff_split: int | None = None

    @property
    def early(self) -> int:
        return len(self.context) if self.late_from is None else min(self.late_from, len(self.context))

    @property
    def split(self) -> int:
        return len(self.diff_order) if self.diff_split is None else min(self.diff_split, len(self.diff_order))

    def as_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "context": [{"path": b.path, "ranges": None if b.ranges is None else [list(r) for r in b.ranges],
                         "reason": b.reason} for b in self.context],
            "diff_order": list(self.diff_order),
            "blocks": [list(b) for b in self.blocks],
            "late_from": self.late_from, "diff_split": self.diff_split,
        }

    @classmethod
    def from_json(cls, data: Any) -> Layout | None:
        """A stored layout, or None when it is missing or from another version (then the review starts fresh)."""
        if not isinstance(data, dict) or data.get("version") != 1:
            return None
        try:
            context = tuple(BlockSpec(str(b["path"]), None if b["ranges"] is None else
                                      tuple((int(r[0]), int(r[1])) for r in b["ranges"]), str(b["reason"]))
                            for b in data["context"])
            blocks = tuple((str(i), str(d), int(t)) for i, d, t in data["blocks"])
            late, split = data.get("late_from"), data.get("diff_split")
            return cls(context=context, diff_order=tuple(str(p) for p in data["diff_order"]), blocks=blocks,
                       late_from=None if late is None else int(late), diff_split=None if split is None else int(split))
        except (KeyError, TypeError, ValueError, IndexError):
            return None

    def digest_of(self, block_id: str) -> str | None:
        return next((d for i, d, _ in self.blocks if i == block_id), None)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:16]


def shared_prefix_tokens(previous: Layout | None, blocks: list[tuple[str, str, int]]) -> int:
    """Tokens of the leading blocks identical to the previous review's: what the prefix cache should reuse."""
    if previous is None:
        return 0
    total = 0
    for (old_id, old_digest, _), (new_id, new_digest, tokens) in zip(previous.blocks, blocks, strict=False):
        if old_id != new_id or old_digest != new_digest:
            break
        total += tokens
    return total


def diff_order(previous: Layout | None, texts: dict[str, str]) -> tuple[list[str], list[str]]:
    """Diff files before and after the re-review's added context: the unchanged ones in their earlier order
    (on the side of it they were on), then the changed or new ones by path, last because they change again."""
    if previous is None:
        return sorted(texts, key=volatility), []
    unchanged = [p for p in previous.diff_order if p in texts and previous.digest_of(f"diff:{p}") == digest(texts[p])]
    before = set(previous.diff_order[:previous.split])
    seen = set(unchanged)
    return ([p for p in unchanged if p in before],
            [p for p in unchanged if p not in before] + sorted((p for p in texts if p not in seen), key=volatility))


def volatility(path: str) -> tuple[int, str]:
    """How likely a follow-up push is to touch a file again: prose and metadata least, then tests, code most
    (review findings are about code). The first review orders its diff by this, so a push breaks the prefix late."""
    if language_for(path) is None:
        return (0, path)
    return (1 if is_test(path) else 2, path)


def covered(old: Ranges, new: Ranges) -> bool:
    """Whether every range of `new` lies inside a range of `old`."""
    if old is None:
        return True
    if new is None:
        return False
    return all(any(a <= s and e <= b for a, b in old) for s, e in new)


def uncovered(old: Ranges, new: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    if old is None:
        return ()
    return tuple(r for r in new if not any(a <= r[0] and r[1] <= b for a, b in old))
