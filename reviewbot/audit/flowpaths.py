"""The cross-file flows an audit knows, pure: a Python function that reads untrusted input, the functions in other
files it calls (imports inside and outside it, re-exports, methods: flowcalls.py), up to one between, and one that
uses a dangerous sink; each as its pieces (path and definition lines), source first, sink last."""

from __future__ import annotations

import builtins
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from reviewbot.audit.callgraph import MAX_DEFINERS
from reviewbot.audit.flowcalls import callees
from reviewbot.audit.flows import SINKS, SOURCES
from reviewbot.audit.pyfactcache import PythonFacts
from reviewbot.review.context.symbols import Definition

MAX_BETWEEN = 1  # functions between the source's and the sink's: input read in A, passed through B, used in C
FUNCTION_KINDS = ("function", "method")
# Python's own names (`super`, `str.join`, `dict.get`): a call by one of them is not one of the repository's functions.
BUILTIN_NAMES = frozenset(dir(builtins)).union(*(dir(t) for t in (str, bytes, list, dict, set, tuple, object)))
# A function taking the request is a view: it and the arguments captured from the URL with it are input.
REQUEST_PARAMETERS = frozenset({"request", "req"})
_SEPARATORS = {c: " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")}


@dataclass(frozen=True, order=True)
class Piece:
    """One function of a flow: its file, its definition's lines and its name."""

    path: str
    start: int
    end: int
    name: str


@dataclass(frozen=True, order=True)
class FlowPath:
    pieces: tuple[Piece, ...]  # the function reading input first, the one using the sink last


def identifiers(line: str) -> frozenset[str]:
    """The words of a line of code (`request.GET.get` -> request, GET, get): cheaper than a parse per function."""
    return frozenset(line.translate(_SEPARATORS).split())


def holds(lines: Sequence[str], d: Definition, names: frozenset[str]) -> bool:
    """Whether the definition's body names one of `names`."""
    return any(not names.isdisjoint(identifiers(lines[n - 1])) for n in range(d.start, min(d.end, len(lines)) + 1))


def find_flows(texts: Mapping[str, str], definitions: Mapping[str, Sequence[Definition]],
               sources: Collection[str], python: PythonFacts | None = None) -> list[FlowPath]:
    """Every flow that starts in a function of `sources` (files that read input) and reaches a function of another
    file that uses a sink, within MAX_BETWEEN functions between; each once, flows to the rarest sinks first.
    `python`: each module's calls and imports, from the facts cache where it knows the blob."""
    modules = python or PythonFacts()
    by_name: defaultdict[str, list[tuple[str, Definition]]] = defaultdict(list)
    for path in sorted(definitions):
        for d in definitions[path]:
            by_name[d.name].append((path, d))
    split: dict[str, list[str]] = {}
    answers: dict[tuple[str, Definition, frozenset[str]], bool] = {}  # a callee many flows reach is read once

    def has(path: str, d: Definition, names: frozenset[str]) -> bool:
        if (path, d, names) not in answers:
            if path not in split:
                split[path] = texts.get(path, "").split("\n")
            answers[(path, d, names)] = holds(split[path], d, names)
        return answers[(path, d, names)]

    def locate(name: str, near: str) -> Sequence[tuple[str, Definition]]:
        found = by_name.get(name, [])
        return found if len(found) <= MAX_DEFINERS else []

    read: Callable[[str], str | None] = texts.get
    defs: Callable[[str], Sequence[Definition]] = lambda p: definitions.get(p, ())  # noqa: E731
    found: set[FlowPath] = set()

    def walk(chain: tuple[Piece, ...], path: str, d: Definition) -> None:
        # The first call leaves the source's file; past it, a helper beside the function passed to counts too.
        for callee in callees(path, texts[path], d, defs, read, locate, elsewhere=len(chain) == 1, facts=modules):
            if callee.definition.kind not in FUNCTION_KINDS or not callee.path.endswith(".py") \
                    or callee.name in BUILTIN_NAMES:
                continue
            piece = Piece(callee.path, callee.definition.start, callee.definition.end, callee.name)
            if any(p.path == piece.path and p.start == piece.start for p in chain):
                continue
            if has(callee.path, callee.definition, SINKS["python"]):
                found.add(FlowPath((*chain, piece)))
            elif len(chain) <= MAX_BETWEEN:
                walk((*chain, piece), callee.path, callee.definition)

    for path in sorted(p for p in sources if p.endswith(".py") and p in texts):
        for d in definitions.get(path, ()):
            if d.kind in FUNCTION_KINDS and (has(path, d, SOURCES["python"])
                                             or not identifiers(d.signature).isdisjoint(REQUEST_PARAMETERS)):
                walk((Piece(path, d.start, d.end, d.name),), path, d)
    modules.save()  # what the walk parsed, for the next plan and this audit's verification
    # A sink function many flows reach is a shared utility (translation, logging): rarest sinks first.
    reached = Counter((f.pieces[-1].path, f.pieces[-1].start) for f in found)
    return sorted(found, key=lambda f: (reached[(f.pieces[-1].path, f.pieces[-1].start)], len(f.pieces), f))
