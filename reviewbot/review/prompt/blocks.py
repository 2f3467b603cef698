"""Context blocks in the remembered order (earlier blocks in their places, new ones after), while relevant."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from reviewbot.review.context.excerpts import plan_ranges, render_block
from reviewbot.review.context.index import RepoIndex
from reviewbot.review.context.selection import Pick
from reviewbot.review.prompt.layout import BlockSpec, Layout, covered, uncovered
from reviewbot.review.prompt.relevance import Spans, left_out_reason, score, shown_by_diff
from reviewbot.review.prompt.sections import estimate_tokens

KEPT_NOTE = " (kept from the previous review for the prompt cache)"


@dataclass(frozen=True)
class Block:
    spec: BlockSpec
    text: str
    tokens: int
    note: str = ""  # for the coverage report only; never part of the prompt
    relevance: float = 100.0


@dataclass(frozen=True)
class Chosen:
    """Blocks to send: `early` before the diff, `late` after the diff files a re-review left unchanged."""

    early: list[Block]
    late: list[Block]
    left_out: list[tuple[str, str]]  # (path, why) of candidates not sent


def context_blocks(picks: list[Pick], index: RepoIndex, previous: Layout | None, budget: int, cpt: float,
                   skip: Callable[[str], bool], in_diff: Spans | None = None) -> Chosen:
    """The earlier review's blocks in their places (cached: still useful or cheap), then new ones by rank while
    they are relevant enough (relevance.py) and fit the budget; `in_diff`: base lines the diff already shows."""
    repeated = [p for p in picks if shown_by_diff(p, in_diff or {})]
    picks = [p for p in picks if p not in repeated]
    relevant = {p.path for p in picks}
    specs = previous.context if previous else ()
    late_from = previous.early if previous else 0
    old = [(i >= late_from, b) for i, spec in enumerate(specs) if (b := _render(spec, index, cpt, skip))]
    new = _new_blocks(picks, index, [b.spec for _, b in old], cpt)
    chosen: set[int] = set()
    left_out = [(p.path, f"{p.reason}: the diff shows where") for p in repeated]
    left = budget
    ranked = ([(i, b) for i, (_, b) in enumerate(old) if b.spec.path in relevant]
              + [(len(old) + i, b) for i, b in enumerate(new)]
              + [(i, b) for i, (_, b) in enumerate(old) if b.spec.path not in relevant])
    for key, block in ranked:
        why = left_out_reason(block.relevance, block.tokens) if key >= len(old) else None
        if why is None and block.tokens > left:
            why = f"over the prompt's token budget ({block.tokens:,} tokens)"
        if why is None:
            chosen.add(key)
            left -= block.tokens
        elif key >= len(old):
            left_out.append((block.spec.path, f"{block.spec.reason}: {why}"))
    kept = [(late, b if b.spec.path in relevant else replace(b, note=KEPT_NOTE))
            for i, (late, b) in enumerate(old) if i in chosen]
    added = [b for i, b in enumerate(new) if len(old) + i in chosen]
    early = [b for late, b in kept if not late]
    if previous is None:
        return Chosen(early + added, [], left_out)
    return Chosen(early, [b for late, b in kept if late] + added, left_out)


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
    reasons = Counter(p.reason for p in picks)
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
        relevance = score(pick, reasons[pick.reason])
        out.append(Block(spec, rendered, estimate_tokens(rendered, cpt) + 1, relevance=relevance))
    return out
