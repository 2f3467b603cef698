"""Chunks cut by the call graph, pure: a module travels with what it calls and what calls it, then path order."""

from __future__ import annotations

from collections.abc import Mapping

from reviewbot.audit.callgraph import CallGraph
from reviewbot.audit.chunks import CHUNK_TOKENS, Chunk
from reviewbot.review.prompt.sections import CHARS_PER_TOKEN


def graph_chunks(sizes: Mapping[str, int], graph: CallGraph, budget_tokens: int = CHUNK_TOKENS,
                 chars_per_token: float = CHARS_PER_TOKEN) -> list[Chunk]:
    """Files joined along the strongest calls first while the group fits the budget (Kruskal's order over a
    union-find), then groups packed in the order of their first path, so what is left joins its neighbours."""
    tokens = {p: max(1, int(s / chars_per_token)) for p, s in sizes.items()}
    parent = {p: p for p in tokens}
    total = dict(tokens)

    def root(path: str) -> str:
        while parent[path] != path:
            parent[path] = parent[parent[path]]
            path = parent[path]
        return path

    for _, caller, callee in graph.edges():
        if caller not in parent or callee not in parent:
            continue
        a, b = root(caller), root(callee)
        if a != b and total[a] + total[b] <= budget_tokens:
            a, b = min(a, b), max(a, b)  # the group is named by its first path: deterministic
            parent[b] = a
            total[a] += total[b]
    groups: dict[str, list[str]] = {}
    for path in sorted(tokens):
        groups.setdefault(root(path), []).append(path)
    chunks: list[Chunk] = []
    current: list[str] = []
    used = 0
    for members in sorted(groups.values(), key=lambda m: m[0]):
        size = sum(tokens[p] for p in members)
        if current and used + size > budget_tokens:
            chunks.append(Chunk(len(chunks), tuple(sorted(current)), used))
            current, used = [], 0
        current += members
        used += size
    if current:
        chunks.append(Chunk(len(chunks), tuple(sorted(current)), used))
    return chunks
