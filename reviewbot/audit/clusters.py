"""Chunks cut by the call graph, pure: a module travels with what it calls and what calls it, packed into few chunks."""

from __future__ import annotations

from collections.abc import Mapping

from reviewbot.audit.callgraph import CallGraph
from reviewbot.audit.chunks import AUDIT_CHUNK_TOKENS, Chunk
from reviewbot.review.prompt.sections import CHARS_PER_TOKEN


def graph_chunks(sizes: Mapping[str, int], graph: CallGraph, budget_tokens: int = AUDIT_CHUNK_TOKENS,
                 chars_per_token: float = CHARS_PER_TOKEN) -> list[Chunk]:
    """Files joined along the strongest calls first while the group fits the budget (Kruskal's order over a
    union-find), then groups packed into as few chunks as fit: first fit in path order (what is left joins its
    neighbours) unless first fit largest first needs fewer chunks."""
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
    in_path_order = sorted(groups.values(), key=lambda m: m[0])
    largest_first = sorted(in_path_order, key=lambda m: -sum(tokens[p] for p in m))  # stable: ties by path
    neighbours, fewest = _first_fit(in_path_order, tokens, budget_tokens), _first_fit(largest_first, tokens,
                                                                                     budget_tokens)
    return neighbours if len(neighbours) <= len(fewest) else fewest


def _first_fit(groups: list[list[str]], tokens: Mapping[str, int], budget_tokens: int) -> list[Chunk]:
    """Each group into the first chunk with room for it, else a new chunk; chunks named in order of their first
    path. Fed in path order, what is left joins a path neighbour; fed largest first, it needs the fewest chunks
    (every chunk costs its context and an answer: an incremental audit's scattered files fill fewer this way)."""
    bins: list[tuple[list[str], list[int]]] = []
    for members in groups:
        size = sum(tokens[p] for p in members)
        home = next((b for b in bins if b[1][0] + size <= budget_tokens), None)
        if home is None:
            bins.append((list(members), [size]))
        else:
            home[0].extend(members)
            home[1][0] += size
    packed = sorted((sorted(paths), used[0]) for paths, used in bins)
    return [Chunk(i, tuple(paths), used) for i, (paths, used) in enumerate(packed)]
