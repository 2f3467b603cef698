"""A context file as the model sees it: whole when small, else an outline plus the relevant bodies."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

from reviewbot.review.context.symbols import Parsed
from reviewbot.review.publish.fences import fence

WHOLE_FILE_CHARS = 6_000  # about 1.5k tokens: cheaper to show whole than to explain what was cut
MAX_EXCERPT_CHARS = 24_000
MAX_OUTLINE_ENTRIES = 60
PAD = 2  # lines of context around each range


def plan_ranges(text: str, ranges: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...] | None:
    """Merged, padded, bounded ranges to show; None means "the whole file" (small enough)."""
    if len(text) <= WHOLE_FILE_CHARS:
        return None
    total = text.count("\n") + 1
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        start, end = max(1, start - PAD), min(total, end + PAD)
        if start > total:
            continue
        if merged and start <= merged[-1][1] + 3:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple((a, b) for a, b in merged)


def render_block(path: str, text: str, parsed: Parsed | None, ranges: tuple[tuple[int, int], ...] | None,
                 reason: str) -> str:
    """One deterministic block: the same inputs always give the same bytes (the prefix cache relies on it)."""
    lines = text.split("\n")
    if ranges is None:
        return f"### {path}\nIncluded because: {reason}\n{fence(text)}"
    shown: list[str] = []
    used = 0
    kept: list[tuple[int, int]] = []
    for start, end in ranges:
        body = "\n".join(lines[start - 1:end])
        if used + len(body) > MAX_EXCERPT_CHARS:
            break
        used += len(body)
        kept.append((start, end))
        shown.append(f"@@ lines {start}-{end} @@\n{body}")
    where = ", ".join(f"{a}-{b}" for a, b in kept) or "none"
    outline = _outline(parsed, kept)
    parts = [f"### {path} (excerpt: lines {where} of {len(lines)})", f"Included because: {reason}"]
    body = "\n".join(([f"Outline (line: definition):\n{outline}"] if outline else []) + shown)
    return "\n".join(parts) + "\n" + fence(body)


def _outline(parsed: Parsed | None, kept: list[tuple[int, int]]) -> str:
    """Definitions outside the shown ranges, one line each, so the model knows what else the file holds."""
    if parsed is None:
        return ""
    out: list[str] = []
    starts = [a for a, _ in kept]  # sorted and disjoint
    for d in parsed.definitions:
        i = bisect_right(starts, d.start) - 1
        if (i >= 0 and d.start <= kept[i][1]) or d.kind in ("variable",):
            continue
        indent = "  " if d.parent else ""
        out.append(f"{d.start}: {indent}{d.signature[:140]}")
        if len(out) >= MAX_OUTLINE_ENTRIES:
            out.append("…")
            break
    return "\n".join(out)
