"""A chunk's context, planned once and rendered anywhere: the callers and callees outside the chunk that link it to
the rest of the repository, as (path, line ranges, reason) blocks small enough to keep in a service audit's record."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from reviewbot.audit.callgraph import CallGraph
from reviewbot.audit.chunks import Chunk
from reviewbot.audit.contextblock import Block, merged_ranges, render_block
from reviewbot.audit.flows import SINKS, SOURCES, Roles
from reviewbot.review.context.languages import language_for
from reviewbot.review.context.symbols import Definition

CONTEXT_TOKENS = 28_000  # per chunk: callers and callees outside it, flows first, then strongest link first
MAX_DEFINITION_LINES = 12  # of a body a flow's source passes input to (its sink lines come too)
MAX_WIDENING_CHARS = 4_000  # one flow's widening may take: many flows, not one file's bodies
COMPACT_SHARE = 0.8  # of the budget for every link's lines; the rest widens flows
MAX_USES_PER_NAME = 2  # per name, around calls into a sink
MAX_COMPACT_CALLS = 1  # call sites per block before it is widened
MAX_FLOW_LINES = 6  # lines naming a sink or a source, per definition of a widened block
USE_PAD = 2  # lines around a call site that feeds a sink
MIN_BLOCK_CHARS = 120
NO_ROLES = Roles(frozenset(), frozenset())


@dataclass
class Link:
    """A file outside the chunk: the chunk's names it calls, the names it defines that the chunk calls, how
    strongly, and whether a flow runs through it (it calls a sink of the chunk, or a source of the chunk calls it)."""

    weight: float = 0.0
    calls: set[str] = field(default_factory=set)
    defines: set[str] = field(default_factory=set)
    flow: bool = False


def links(chunk: Chunk, graph: CallGraph, roles: Roles = NO_ROLES) -> dict[str, Link]:
    """Every file outside the chunk it calls or is called by; a flow when input is read on one side of the call
    and a sink used on the other (a file of the chunk that reads input calls a file that uses a sink, or back)."""
    inside = set(chunk.paths)
    found: dict[str, Link] = {}
    for path in chunk.paths:
        for callee, names in graph.uses.get(path, {}).items():
            if callee not in inside:
                link = found.setdefault(callee, Link())
                link.weight += graph.weight[path][callee]
                link.defines.update(names)
                link.flow |= path in roles.sources and callee in roles.sinks
        for caller in graph.callers.get(path, ()):
            if caller not in inside:
                link = found.setdefault(caller, Link())
                link.weight += graph.weight[caller][path]
                link.calls.update(graph.uses[caller][path])
                link.flow |= caller in roles.sources and path in roles.sinks
    return found


class Lined:
    """A file's text split for planning: its lines, each line's offset in the text, and the lines naming each set
    of names asked about (a sink list, a source list); kept across chunks, since most files link several."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.offsets = list(accumulate(map((1).__add__, map(len, self.lines)), initial=0))
        self.naming: dict[frozenset[str], list[int]] = {}

    def lines_naming(self, names: frozenset[str]) -> list[int]:
        """The sorted numbers of the lines where one of `names` occurs (str.find over the text once per name, not
        every name on every line)."""
        if names not in self.naming:
            found: set[int] = set()
            for name in names:
                at = self.text.find(name)
                while at >= 0:
                    found.add(bisect_right(self.offsets, at))
                    at = self.text.find(name, at + 1)
            self.naming[names] = sorted(found)
        return self.naming[names]


def plan_context(chunk: Chunk, read: Callable[[str], str | None], graph: CallGraph,
                 definitions: Mapping[str, Sequence[Definition]], budget: int = CONTEXT_TOKENS,
                 roles: Roles = NO_ROLES, files: dict[str, Lined] | None = None) -> list[Block]:
    """One block per file outside the chunk that calls into it or that it calls: first every link by its lines
    alone (the calls of the chunk's names, the signatures of what it calls), flows and strongest links first;
    then, while the budget lasts, flows widened: a few lines around each call into a sink of this part, the
    first lines of the bodies this part passes its input to. A block that does not fit is left out. `files`: the
    files split by an earlier chunk's planning (read, split and added to as needed)."""
    found = links(chunk, graph, roles)
    order = sorted(found, key=lambda p: (not found[p].flow, -found[p].weight, p))
    chars = budget * 4
    left = int(chars * COMPACT_SHARE)  # the rest is kept for widening flows
    chosen: dict[str, tuple[Block, int]] = {}
    texts = files if files is not None else {}
    for wide in (False, True):
        if wide:
            left += chars - int(chars * COMPACT_SHARE)
        for path in order:
            if left < MIN_BLOCK_CHARS or (wide and (not found[path].flow or path not in chosen)):
                continue
            if path not in texts:
                if (text := read(path)) is None:
                    continue
                texts[path] = Lined(text)
            block, size = _block(path, texts[path], found[path], definitions.get(path, ()), wide)
            grown = size - chosen[path][1] if path in chosen else size
            # kept as a spec, rendered again where the request is built
            if block.ranges and grown <= min(left, MAX_WIDENING_CHARS if wide else left):
                chosen[path] = (block, size)
                left -= grown
    return [chosen[p][0] for p in order if p in chosen]


def _block(path: str, text: Lined, link: Link, defined: Sequence[Definition],
           wide: bool) -> tuple[Block, int]:
    """The block and how many characters `render_block` writes for it: every signature the file defines for the
    chunk (a few lines each) and its first calls of the chunk's names (around each, when `wide`)."""
    lines = text.lines
    calls, defines = sorted(link.calls), sorted(link.defines)
    body = min((d.start for d in defined), default=1)  # uses before the first definition are its imports
    uses = _uses(text, calls, body, MAX_USES_PER_NAME if wide else 1, None if wide else MAX_COMPACT_CALLS)
    heads = [_definition(d, lines, wide) for d in defined if d.name in link.defines]
    calls_at = [(max(1, n - USE_PAD), n + USE_PAD) if wide else (n, n) for n in uses]
    if wide:  # the flow's far end: sinks in the bodies this part calls, input read where this part is called
        language = language_for(path) or ""
        heads += _holding(text, [d for d in defined if d.name in link.defines], SINKS.get(language, frozenset()))
        calls_at += _holding(text, [d for d in defined if any(d.start <= n <= d.end for n in uses)],
                             SOURCES.get(language, frozenset()))
    ranges = merged_ranges([(a, min(b, len(lines))) for a, b in heads + calls_at if a <= len(lines)])
    reason = "; ".join(part for part in (
        f"calls {', '.join(f'`{n}`' for n in calls[:3])} of this part" if calls else "",
        f"defines {', '.join(f'`{n}`' for n in defines[:3])}" if defines else "") if part)
    block = Block(path, ranges, reason)
    return block, len(render_block(block, lines))


def _uses(text: Lined, names: list[str], start: int, most: int,
          limit: int | None) -> list[int]:
    """The lines of the first `most` uses of each name from line `start` on (its calls, not its imports), at
    most `limit` in all: str.find on the text, line numbers from the lines' offsets."""
    whole, offsets, lines = text.text, text.offsets, text.lines
    out: list[int] = []
    for name in names:
        at = offsets[min(start, len(lines)) - 1]
        for _ in range(most):
            at = whole.find(name, at)
            if at < 0:
                break
            out.append(bisect_right(offsets, at))
            at += len(name)
        if limit is not None and len(out) >= limit:
            return out[:limit]
    return out


def _holding(text: Lined, within: Sequence[Definition], names: frozenset[str]) -> list[tuple[int, int]]:
    """The first lines of each definition that name one of `names` (a sink, a source), as one-line ranges."""
    if not within:
        return []
    naming = text.lines_naming(names)
    out: list[tuple[int, int]] = []
    for d in within:
        lo = bisect_left(naming, d.start)
        found = naming[lo:bisect_right(naming, min(d.end, len(text.lines)), lo)]
        out += [(n, n) for n in found[:MAX_FLOW_LINES]]
    return out


def _definition(d: Definition, lines: list[str], wide: bool) -> tuple[int, int]:
    """A definition's decorators and signature; its whole body too when `wide` and the body is short (of a long
    one, the lines naming a sink come instead: `_holding`)."""
    start = d.start
    while start < d.end and lines[start - 1].lstrip().startswith("@"):
        start += 1
    header = start + d.signature.count("\n")
    return d.start, d.end if wide and d.end - header <= MAX_DEFINITION_LINES else header
