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


def flow_blocks(flow: FlowPath, keyed: list[tuple[Piece, tuple[int, ...]]], lines: Mapping[str, list[str]],
                budget_chars: int) -> tuple[Block, ...] | None:
    """The flow's pieces as blocks: each function whole when short, else its signature and key lines; None when
    even that does not fit the budget."""
    roles = ["reads untrusted input", *["passes it on"] * (len(flow.pieces) - 2), "uses a sink"]
    for whole in (True, False):
        blocks = []
        for (piece, keys), role in zip(keyed, roles, strict=True):
            spans = [(n - KEY_PAD, n + KEY_PAD) for n in keys[1:]]
            head = piece.end if whole and piece.end - piece.start <= MAX_PIECE_LINES else piece.start + 1
            shown = merged_ranges((max(1, a), min(b, piece.end)) for a, b in [(piece.start, head), *spans])
            blocks.append(Block(piece.path, shown, f"`{piece.name}`: {role}"))
        if sum(len(render_block(b, lines[b.path])) for b in blocks) <= budget_chars:
            return tuple(blocks)
    return None


def flow_chunks(flows: Sequence[FlowPath], chunks: Sequence[Chunk], contexts: Sequence[Sequence[Block]],
                texts: Mapping[str, str], *, most: int = MAX_FLOW_REQUESTS,
                tokens: int = FLOW_REQUEST_TOKENS) -> list[Chunk]:
    """One chunk (no files of its own, the flow as its blocks) per flow no chunk's request holds, in the flows'
    order, numbered after `chunks`; the same flow pieces shown twice are one request."""
    lines = {p.path: texts[p.path].split("\n") for f in flows for p in f.pieces}
    out: list[Chunk] = []
    seen: set[tuple[Block, ...]] = set()
    for flow in flows:
        if len(out) >= most:
            break
        keyed = _keys(flow, lines)
        if any(all(held(c, blocks, p, k) for p, k in keyed) for c, blocks in zip(chunks, contexts, strict=True)):
            continue
        blocks = flow_blocks(flow, keyed, lines, tokens * 4)
        if blocks is None or blocks in seen:
            continue
        seen.add(blocks)
        size = sum(len(render_block(b, lines[b.path])) for b in blocks) // 4
        out.append(Chunk(len(chunks) + len(out), (), size, blocks))
    return out
