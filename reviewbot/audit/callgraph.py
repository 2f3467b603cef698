"""Which files call which, pure: a file-level graph from each file's definitions and the identifiers it uses."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from reviewbot.review.context.index import module_stem

MIN_NAME = 4  # shorter names (`get`, `run`) say nothing about who calls whom
MAX_DEFINERS = 3  # a name defined in more files is ambiguous: which one is meant?
MAX_USERS = 40  # a name used in more files is infrastructure: its callers do not travel with it
MAX_EDGE_NAMES = 32  # names kept per edge, to render the context that links two files


@dataclass(frozen=True)
class CallGraph:
    """`uses[a][b]`: the names file `a` uses that file `b` defines (so `a` likely calls `b`); `weight[a][b]` how
    strongly (specific names count more; naming `b`'s module, as an import does, counts double)."""

    uses: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    weight: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    callers: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def callees(self, path: str) -> frozenset[str]:
        return frozenset(self.uses.get(path, {}))

    def neighbours(self, path: str) -> frozenset[str]:
        """Files `path` calls and files that call it."""
        return self.callees(path) | self.callers.get(path, frozenset())

    def edges(self) -> list[tuple[float, str, str]]:
        """(weight, caller, callee), strongest first; ties by path, so every cut is deterministic."""
        return sorted(((w, a, b) for a, row in self.weight.items() for b, w in row.items()),
                      key=lambda e: (-e[0], e[1], e[2]))

    def as_json(self) -> dict[str, Any]:
        return {"uses": {a: {b: list(n) for b, n in sorted(row.items())} for a, row in sorted(self.uses.items())},
                "weight": {a: dict(sorted(row.items())) for a, row in sorted(self.weight.items())}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CallGraph:
        uses = {a: {b: tuple(n) for b, n in row.items()} for a, row in data["uses"].items()}
        return _with_callers(uses, {a: dict(row) for a, row in data["weight"].items()})


def build_graph(defined: Mapping[str, Iterable[str]], used: Mapping[str, Iterable[str]],
                functions: Mapping[str, Iterable[str]] | None = None) -> CallGraph:
    """`defined[path]`: names the file defines; `used[path]`: identifiers its text holds; `functions[path]`: the
    module-level functions among them. An edge a → b for each specific name b defines and a uses (not one every
    file uses, nor one many files define, unless exactly one file defines it as a module-level function: a call
    by that bare name can only mean that one, whatever methods share it)."""
    definers: defaultdict[str, list[str]] = defaultdict(list)
    for path in sorted(defined):
        for name in set(defined[path]):
            if len(name) >= MIN_NAME and not name.startswith("__"):
                definers[name].append(path)
    top: defaultdict[str, list[str]] = defaultdict(list)
    for path in sorted(functions or {}):
        for name in set((functions or {})[path]):
            top[name].append(path)
    definers = defaultdict(list, {n: p if len(p) <= MAX_DEFINERS else top[n] for n, p in definers.items()
                                  if len(p) <= MAX_DEFINERS or len(top.get(n, ())) == 1})
    users: defaultdict[str, list[str]] = defaultdict(list)
    specific = frozenset(definers)
    for path in sorted(used):
        for name in _as_set(used[path]) & specific:
            users[name].append(path)
    uses: defaultdict[str, dict[str, list[str]]] = defaultdict(dict)
    weight: defaultdict[str, dict[str, float]] = defaultdict(dict)
    for name in sorted(users):
        files = [u for u in users[name] if u not in definers[name]]
        if not files or len(files) > MAX_USERS:
            continue
        share = 1.0 / (math.sqrt(len(definers[name])) * math.log2(2 + len(files)))
        for caller in files:
            for callee in definers[name]:
                uses[caller].setdefault(callee, []).append(name)
                weight[caller][callee] = weight[caller].get(callee, 0.0) + share
    stems = {path: module_stem(path) for path in defined}
    for caller, row in weight.items():
        names = _as_set(used.get(caller, ()))
        for callee in row:
            if stems[callee] in names:
                row[callee] *= 2.0
    return _with_callers({a: {b: tuple(n[:MAX_EDGE_NAMES]) for b, n in row.items()} for a, row in uses.items()},
                         {a: {b: round(w, 6) for b, w in row.items()} for a, row in weight.items()})


def _as_set(names: Iterable[str]) -> AbstractSet[str]:
    """A set as it is (most callers pass one per file: copying hundreds of them was a third of the graph's time)."""
    return names if isinstance(names, (set, frozenset)) else set(names)


def with_weights(graph: CallGraph, weight: Mapping[str, Mapping[str, float]]) -> CallGraph:
    """The same edges and names with other weights (the flows' emphasis)."""
    return CallGraph(uses=graph.uses, weight=weight, callers=graph.callers)


def _with_callers(uses: dict[str, dict[str, tuple[str, ...]]], weight: dict[str, dict[str, float]]) -> CallGraph:
    callers: defaultdict[str, set[str]] = defaultdict(set)
    for caller, row in uses.items():
        for callee in row:
            callers[callee].add(caller)
    return CallGraph(uses=uses, weight=weight, callers={p: frozenset(c) for p, c in callers.items()})
