"""Markdown shortened to a length without cutting through a code span, link or raw HTML (decided by the parser)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from markdown_it.token import Token

from reviewbot.review.publish.safemd import parser

TRUNCATED = "\n\n…(truncated)"
WINDOW = 2_000  # where a cut is looked for first: the last characters before the limit
_PLANE = 0xF0000  # supplementary private use: characters that mean nothing to Markdown, one per candidate cut


def bounded(text: str, limit: int, note: str = TRUNCATED) -> str:
    """`text` if it fits, else its longest prefix that ends in plain prose (or inside a code block, which is then
    closed) followed by `note`. A cut inside a code span would let GitHub render the rest of the span as prose:
    mentions that ping and links that were only shown as code."""
    if len(text) <= limit:
        return text
    end, closer = cut_point(text, limit)
    return text[:end].rstrip() + closer + note


def cut_point(text: str, limit: int) -> tuple[int, str]:
    """(position, what closes the block cut into): the last word end at or before `limit` that the parser puts in
    a text token outside links, or in a code block's content; 0 when there is none."""
    for start in (max(0, limit - WINDOW), 0):
        candidates = [p for p in range(start, min(limit, len(text) - 1) + 1) if _word_end(text, p)]
        safe = _safe(text, candidates)
        if safe:
            return max(safe.items())
        if start == 0:
            break
    return 0, ""


def _word_end(text: str, p: int) -> bool:
    return p > 0 and text[p - 1].isalnum() and text[p] in " \t\n"


def _safe(text: str, candidates: list[int]) -> dict[int, str]:
    """Which candidates are safe cuts: each gets its own marker character, the marked text is parsed once, and a
    marker found in prose (or code block content) marks a safe position."""
    present = {ord(c) for c in text if ord(c) >= _PLANE}
    codes = list(itertools.islice((c for c in range(_PLANE, _PLANE + 65_534) if c not in present), len(candidates)))
    marker_at = {chr(code): p for code, p in zip(codes, candidates, strict=False)}
    marked, last = [], 0
    for code, p in zip(codes, candidates, strict=False):
        marked += [text[last:p], chr(code)]
        last = p
    marked.append(text[last:])
    safe: dict[int, str] = {}
    for token in parser().parse("".join(marked)):
        if token.type in ("fence", "code_block"):
            closer = "\n" + token.markup if token.type == "fence" and token.level == 0 else ""
            safe.update((marker_at[c], closer) for c in token.content if c in marker_at)
        elif token.type == "inline":
            safe.update((marker_at[c], "") for c in _prose(token.children or []) if c in marker_at)
    return safe


def _prose(children: Iterable[Token]) -> Iterable[str]:
    """The characters of an inline token's text outside links and images (code spans and raw HTML are their own
    tokens, so never text)."""
    depth = 0
    for child in children:
        if child.type in ("link_open", "link_close"):
            depth += 1 if child.type == "link_open" else -1
        elif child.type == "text" and depth == 0:
            yield from child.content
