"""Follow-up requests for the flows no chunk's request holds whole, pure: each such flow (flowpaths.py), once, becomes
one more part on the audit's shared prefix showing just its pieces, bounded in count and tokens per audit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reviewbot.audit.chunks import Chunk
from reviewbot.audit.contextblock import Block, merged_ranges, render_block
from reviewbot.audit.flowpaths import FlowPath, Piece
from reviewbot.audit.flows import SINKS, SOURCE_ATTRIBUTES, SOURCES
from reviewbot.review.context.languages import language_for

MAX_FLOW_REQUESTS = 40  # per audit: about a third of a 120k-token chunk's price in all, prefix cached
FLOW_REQUEST_TOKENS = 6_000  # of code per flow request: three functions with their key lines
MAX_PIECE_LINES = 60  # of a function's body shown whole; past it, its signature and key lines
MAX_KEY_LINES = 6  # lines naming a source or a sink, per piece
KEY_PAD = 1


def key_lines(piece: Piece, lines: Sequence[str], names: frozenset[str]) -> tuple[int, ...]:
    """The definition's first line and the first lines of its body naming one of `names` (input read, sink used)."""
    found = [n for n in range(piece.start + 1, min(piece.end, len(lines)) + 1)
             if any(name in lines[n - 1] for name in names)]
    return (piece.start, *found[:MAX_KEY_LINES])


def _keys(flow: FlowPath, texts: Mapping[str, list[str]]) -> list[tuple[Piece, tuple[int, ...]]]:
    last = len(flow.pieces) - 1

    def names(i: int, language: str) -> frozenset[str]:
        if i == 0:
            return SOURCES.get(language, frozenset()) | SOURCE_ATTRIBUTES.get(language, frozenset())
        return SINKS.get(language, frozenset()) if i == last else frozenset()

    return [(p, key_lines(p, texts[p.path], names(i, language_for(p.path) or ""))) for i, p in enumerate(flow.pieces)]


def held(chunk: Chunk, blocks: Sequence[Block], piece: Piece, keys: tuple[int, ...]) -> bool:
    """Whether the chunk's request shows the piece's key lines: its own file whole, or context ranges around them."""
    if piece.path in chunk.paths:
        return True
    ranges = [r for b in blocks if b.path == piece.path for r in (b.ranges or ((1, piece.end),))]
    return all(any(a <= n <= z for a, z in ranges) for n in keys)


Shown = tuple[Piece, tuple[int, ...], str]  # a piece, its key lines and its role in the flows shown


def flow_blocks(shown: Sequence[Shown], lines: Mapping[str, list[str]], budget_chars: int,
                modes: tuple[bool, ...] = (True, False)) -> tuple[Block, ...] | None:
    """The pieces as blocks: each function whole when short, else (`modes` allowing) its signature and key lines;
    None when that does not fit the budget."""
    for whole in modes:
        blocks = []
        for piece, keys, role in shown:
            spans = [(n - KEY_PAD, n + KEY_PAD) for n in keys[1:]]
            head = piece.end if whole and piece.end - piece.start <= MAX_PIECE_LINES else piece.start + 1
            shown_lines = merged_ranges((max(1, a), min(b, piece.end)) for a, b in [(piece.start, head), *spans])
            blocks.append(Block(piece.path, shown_lines, f"`{piece.name}`: {role}"))
        if sum(len(render_block(b, lines[b.path])) for b in blocks) <= budget_chars:
            return tuple(blocks)
    return None


def _with(group: list[Shown], keyed: list[tuple[Piece, tuple[int, ...]]]) -> list[Shown]:
    """The group's pieces and the flow's not yet among them (a piece both passed to and using a sink keeps both
    flows' key lines), in the order first shown: the shared source first."""
    last = len(keyed) - 1
    out = list(group)
    for i, (piece, keys) in enumerate(keyed):
        role = "reads untrusted input" if i == 0 else "uses a sink" if i == last else "passes it on"
        at = next((n for n, (p, _, _) in enumerate(out) if p == piece), None)
        if at is None:
            out.append((piece, keys, role))
        else:
            p, known, first = out[at]
            out[at] = (p, (known[0], *sorted(set(known[1:]) | set(keys[1:]))), first)
    return out


def flow_chunks(flows: Sequence[FlowPath], chunks: Sequence[Chunk], contexts: Sequence[Sequence[Block]],
                texts: Mapping[str, str], *, most: int = MAX_FLOW_REQUESTS,
                tokens: int = FLOW_REQUEST_TOKENS) -> list[Chunk]:
    """One chunk (no files of its own, the flows as its blocks) per source function whose flows no chunk's request
    holds, in the flows' order, numbered after `chunks`: the flows from one function share its request while they
    fit its tokens (the next one opens another), so a function passing input to many callees is one request."""
    lines = {p.path: texts[p.path].split("\n") for f in flows for p in f.pieces}
    groups: list[tuple[list[Shown], tuple[Block, ...], bool]] = []  # pieces, blocks, short bodies shown whole
    open_group: dict[Piece, int] = {}  # source piece -> its group taking more flows
    for flow in flows:
        keyed = _keys(flow, lines)
        if any(all(held(c, blocks, p, k) for p, k in keyed) for c, blocks in zip(chunks, contexts, strict=True)):
            continue
        source = flow.pieces[0]
        if source in open_group:
            at = open_group[source]
            grown, whole = _with(groups[at][0], keyed), groups[at][2]
            # a flow joins while the request keeps showing what it showed (whole bodies stay whole)
            if (blocks := flow_blocks(grown, lines, tokens * 4, (whole,))) is not None:
                groups[at] = (grown, blocks, whole)
                continue
        if len(groups) >= most:
            continue  # no request left for a new source: later flows may still join an open one
        alone = _with([], keyed)
        for whole in (True, False):
            if (blocks := flow_blocks(alone, lines, tokens * 4, (whole,))) is not None:
                open_group[source] = len(groups)
                groups.append((alone, blocks, whole))
                break
    out: list[Chunk] = []
    seen: set[tuple[Block, ...]] = set()
    for _, blocks, _ in groups:
        if blocks not in seen:
            seen.add(blocks)
            size = sum(len(render_block(b, lines[b.path])) for b in blocks) // 4
            out.append(Chunk(len(chunks) + len(out), (), size, blocks))
    return out
