"""A context block of an audit's chunk, pure: which file, which lines and why, as a service audit keeps it in its plan,
and the bytes it renders to (the file's own line numbers), the same wherever the request is built."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

FENCE_BREAK = "`\u200b``"  # a fence inside the code cannot close ours


@dataclass(frozen=True)
class Block:
    """One context block as planned: which file, which line ranges (None: the whole file) and why. Small enough to
    keep per chunk in a service audit's record; rendered again from the file it names, to the same bytes."""

    path: str
    ranges: tuple[tuple[int, int], ...] | None
    reason: str

    def as_json(self) -> list[object]:
        return [self.path, None if self.ranges is None else [list(r) for r in self.ranges], self.reason]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> Block:
        path, ranges, reason = data
        return cls(str(path), None if ranges is None else tuple((int(a), int(b)) for a, b in ranges), str(reason))


def merged_ranges(ranges: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """1-based inclusive line ranges, sorted, with overlapping and adjacent ones joined."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return tuple(out)


def render_block(block: Block, lines: list[str]) -> str:
    """A block as the request shows it: the file's own line numbers (as the chunk's files are numbered), blank
    lines left out; `ranges` None shows the whole file."""
    return _render(block, lines, len(lines))


def render_text(block: Block, text: str) -> str:
    """`render_block` of the file's text, splitting only its lines up to the block's last (a block is a few lines
    of a file, rendered again for every request that shows it)."""
    if block.ranges is None:
        lines = text.split("\n")
        return _render(block, lines, len(lines))
    last = max(max((b for _, b in block.ranges), default=0), 0)
    lines = text.split("\n", last)  # the first `last` lines, then the rest of the text in one (never shown)
    total = len(lines) if len(lines) <= last else last + 1 + lines[last].count("\n")
    return _render(block, lines, total)


def _render(block: Block, lines: list[str], total: int) -> str:
    """The block from the file's first lines (at least up to its last range's end, or the file's) and its count."""
    ranges = block.ranges if block.ranges is not None else ((1, total),)
    # `line and not line.isspace()` is `line.strip()` without a copy of each line
    shown = [f"{n} {line}" for a, b in ranges
             for n, line in enumerate(lines[max(a, 1) - 1:min(b, total)], max(a, 1))
             if line and not line.isspace()]
    where = "whole" if block.ranges is None else f"of {total} lines"
    body = "\n".join(shown).replace("```", FENCE_BREAK)
    return f"### {block.path} ({where}; {block.reason})\n```\n{body}\n```"
