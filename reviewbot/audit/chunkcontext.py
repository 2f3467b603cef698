"""A chunk's context, planned once and rendered anywhere: the callers and callees outside the chunk that link it to
the rest of the repository, as (path, line ranges, reason) blocks small enough to keep in a service audit's record."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reviewbot.audit.callgraph import CallGraph
from reviewbot.audit.chunks import Chunk
from reviewbot.review.context.excerpts import plan_ranges, render_block
from reviewbot.review.context.symbols import Definition

CONTEXT_TOKENS = 6_000  # per chunk: callers and callees outside it, strongest link first
MAX_DEFINITION_LINES = 40
MAX_USES_PER_NAME = 3
MIN_BLOCK_CHARS = 400


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


def links(chunk: Chunk, graph: CallGraph) -> list[tuple[float, str, str, tuple[str, ...]]]:
    """(weight, path, "callee" or "caller", names) for files outside the chunk it calls or is called by."""
    inside = set(chunk.paths)
    found: dict[tuple[str, str], tuple[float, set[str]]] = {}
    for path in chunk.paths:
        for callee, names in graph.uses.get(path, {}).items():
            if callee not in inside:
                w, seen = found.get((callee, "callee"), (0.0, set()))
                found[(callee, "callee")] = (w + graph.weight[path][callee], seen | set(names))
        for caller in graph.callers.get(path, ()):
            if caller not in inside:
                w, seen = found.get((caller, "caller"), (0.0, set()))
                found[(caller, "caller")] = (w + graph.weight[caller][path], seen | set(graph.uses[caller][path]))
    return sorted(((w, p, how, tuple(sorted(n))) for (p, how), (w, n) in found.items()),
                  key=lambda x: (-x[0], x[1], x[2]))


def plan_context(chunk: Chunk, read: Callable[[str], str | None], graph: CallGraph,
                 definitions: Mapping[str, Sequence[Definition]], budget: int = CONTEXT_TOKENS) -> list[Block]:
    """Callers first (where tainted input comes from is what an audit misses most), as short windows around
    their uses; then the definitions this part calls, strongest link first, while the budget lasts."""
    blocks: list[Block] = []
    left = budget * 4  # characters
    ranked = links(chunk, graph)
    for _, path, how, names in [x for x in ranked if x[2] == "caller"] + [x for x in ranked if x[2] == "callee"]:
        if left < MIN_BLOCK_CHARS:
            break
        text = read(path)
        if text is None:
            continue
        if how == "callee":
            ranges = plan_ranges(text, [(d.start, min(d.end, d.start + MAX_DEFINITION_LINES))
                                        for d in definitions.get(path, ()) if d.name in names])
            if ranges is None and len(text) > left:
                continue  # shown whole, it would not fit: not worth rendering to find out
            reason = f"defines {', '.join(f'`{n}`' for n in names[:4])}, used by this part"
        else:
            ranges = _merged(_uses(text, names))
            reason = f"uses {', '.join(f'`{n}`' for n in names[:4])}, defined in this part"
        size = len(render_block(path, text, None, ranges, reason))  # what it would cost decides; the block is kept
        if size <= left:  # as a spec and rendered again where the request is built
            blocks.append(Block(path, ranges, reason))
            left -= size
    return blocks


def _merged(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return tuple(out)


def _uses(text: str, names: tuple[str, ...]) -> list[tuple[int, int]]:
    """Windows around the first uses of each name: str.find, and lines counted on from the previous use."""
    found: list[int] = []
    for name in names:
        start = 0
        for _ in range(MAX_USES_PER_NAME):
            at = text.find(name, start)
            if at < 0:
                break
            found.append(at)
            start = at + len(name)
    out: list[tuple[int, int]] = []
    line, at = 1, 0
    for position in sorted(found):
        line += text.count("\n", at, position)
        at = position
        out.append((max(1, line - 3), line + 3))
    return out
