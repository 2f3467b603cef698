"""Context blocks within the budget, in the remembered order: earlier blocks first, new ones appended."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from reviewbot.review.context.excerpts import plan_ranges, render_block
from reviewbot.review.context.index import RepoIndex
from reviewbot.review.context.selection import Pick
from reviewbot.review.prompt.layout import BlockSpec, Layout, covered, uncovered
from reviewbot.review.prompt.sections import estimate_tokens

KEPT_NOTE = " (kept from the previous review for the prompt cache)"


@dataclass(frozen=True)
class Block:
    spec: BlockSpec
    text: str
    tokens: int
    note: str = ""  # for the coverage report only; never part of the prompt


def context_blocks(picks: list[Pick], index: RepoIndex, previous: Layout | None, budget: int, cpt: float,
                   skip: Callable[[str], bool]) -> list[Block]:
    """Blocks to send, in prompt order: the earlier review's (still useful or cheap), then new ones by rank."""
    relevant = {p.path for p in picks}
    old = [b for spec in (previous.context if previous else ()) if (b := _render(spec, index, cpt, skip))]
    new = _new_blocks(picks, index, [b.spec for b in old], cpt)
    chosen: set[int] = set()
    left = budget
    ranked = ([(i, b) for i, b in enumerate(old) if b.spec.path in relevant]
              + [(len(old) + i, b) for i, b in enumerate(new)]
              + [(i, b) for i, b in enumerate(old) if b.spec.path not in relevant])
    for key, block in ranked:
        if block.tokens <= left:
            chosen.add(key)
            left -= block.tokens
    kept_old = [b if b.spec.path in relevant else Block(b.spec, b.text, b.tokens, KEPT_NOTE)
                for i, b in enumerate(old) if i in chosen]
    return kept_old + [b for i, b in enumerate(new) if len(old) + i in chosen]


def _render(spec: BlockSpec, index: RepoIndex, cpt: float, skip: Callable[[str], bool]) -> Block | None:
    text = index.text(spec.path)
    if text is None or skip(spec.path):
        return None
    parsed = index.parsed(spec.path, force=True) if spec.ranges is not None else None
    rendered = render_block(spec.path, text, parsed, spec.ranges, spec.reason)
    return Block(spec, rendered, estimate_tokens(rendered, cpt) + 1)


def _new_blocks(picks: list[Pick], index: RepoIndex, old: list[BlockSpec], cpt: float) -> list[Block]:
    """One block per pick, minus what the earlier blocks of the same file already show."""
    by_path: dict[str, list[BlockSpec]] = {}
    for spec in old:
        by_path.setdefault(spec.path, []).append(spec)
    out: list[Block] = []
    for pick in picks:
        text = index.text(pick.path)
        if text is None:
            continue
        ranges = plan_ranges(text, pick.ranges)
        earlier = by_path.get(pick.path, [])
        if any(covered(spec.ranges, ranges) for spec in earlier):
            continue
        if earlier and ranges is not None:
            shown = tuple(r for spec in earlier if spec.ranges for r in spec.ranges)
            ranges = uncovered(shown, ranges)
            if not ranges:
                continue
        spec = BlockSpec(pick.path, ranges, pick.reason)
        parsed = index.parsed(pick.path, force=True) if ranges is not None else None
        rendered = render_block(pick.path, text, parsed, ranges, pick.reason)
        out.append(Block(spec, rendered, estimate_tokens(rendered, cpt) + 1))
    return out
