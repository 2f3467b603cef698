"""The cross-file flows an audit knows, pure: a Python, C or C++ function that reads untrusted input
(flowsources.py), the functions in other files it calls (imports, re-exports, methods, classes instantiated, calls
through bound names: flowcalls.py), up to one between, and one that uses a dangerous sink; each as its pieces (path
and definition lines), source first, sink last."""

from __future__ import annotations

import builtins
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from reviewbot.audit.boundcalls import MAX_IMPLEMENTATIONS
from reviewbot.audit.flowcalls import Callee, callees
from reviewbot.audit.flows import SINKS, SOURCES
from reviewbot.audit.flowsources import (
    attribute_source,
    exported_names,
    identifiers,
    language_family,
    takes_input,
)
from reviewbot.audit.pyfactcache import PythonFacts
from reviewbot.review.context.languages import language_for
from reviewbot.review.context.symbols import Definition

MAX_BETWEEN = 1  # functions between the source's and the sink's: input read in A, passed through B, used in C
FUNCTION_KINDS = ("function", "method")
MAX_METHODS = 30  # of a class instantiated, followed in the order it defines them
# Python's own names (`super`, `str.join`, `dict.get`): a call by one of them is not one of the repository's functions.
BUILTIN_NAMES = frozenset(dir(builtins)).union(*(dir(t) for t in (str, bytes, list, dict, set, tuple, object)))


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

    def split_lines(path: str) -> list[str]:
        if path not in split:
            split[path] = texts.get(path, "").split("\n")
        return split[path]

    def has(path: str, d: Definition, names: frozenset[str]) -> bool:
        if (path, d, names) not in answers:
            answers[(path, d, names)] = holds(split_lines(path), d, names)
        return answers[(path, d, names)]

    def locate(name: str, near: str) -> Sequence[tuple[str, Definition]]:
        found = by_name.get(name, [])
        return found if len(found) <= MAX_IMPLEMENTATIONS else []  # callees() keeps MAX_DEFINERS for a plain call

    read: Callable[[str], str | None] = texts.get
    defs: Callable[[str], Sequence[Definition]] = lambda p: definitions.get(p, ())  # noqa: E731
    found: set[FlowPath] = set()

    def pieces_of(callee: Callee, family: str) -> list[tuple[Piece, Definition]]:
        """The callee as a flow's pieces: a function of the flow's language with a body (a C prototype in a header
        is not one, its definition is); a Python class instantiated is its `__init__` and its own methods, as the
        instance keeps what it was built from for them (the input reaches a method called later, elsewhere)."""
        d = callee.definition
        if language_family(callee.path) != family or (family == "python" and callee.name in BUILTIN_NAMES):
            return []
        if d.kind == "class" and family == "python":
            methods = [m for m in defs(callee.path) if m.parent == d.name and m.kind in FUNCTION_KINDS
                       and (m.name == "__init__" or not m.name.startswith("__"))]
            return [(Piece(callee.path, m.start, m.end, m.name), m) for m in methods[:MAX_METHODS]]
        if d.kind not in FUNCTION_KINDS:
            return []
        module = modules(callee.path, texts[callee.path]) if family == "c" else None
        if family == "c" and (module is None or not any(f.start == d.start for f in module.by_name.get(d.name, ()))):
            return []
        return [(Piece(callee.path, d.start, d.end, d.name), d)]

    def walk(chain: tuple[Piece, ...], path: str, d: Definition, family: str) -> None:
        # The first call leaves the source's file; past it, a helper beside the function passed to counts too.
        for callee in callees(path, texts[path], d, defs, read, locate, elsewhere=len(chain) == 1, facts=modules):
            for piece, definition in pieces_of(callee, family):
                if any(p.path == piece.path and p.start == piece.start for p in chain):
                    continue
                if has(piece.path, definition, SINKS[language_for(piece.path) or ""]):
                    found.add(FlowPath((*chain, piece)))
                # on past a sink's name too: the call naming it may be the repository's own wrapper of the sink
                if len(chain) <= MAX_BETWEEN:
                    walk((*chain, piece), piece.path, definition, family)

    exported = exported_names(definitions)
    for path in sorted(p for p in sources if p in texts and language_family(p) is not None):
        language, family = language_for(path) or "", language_family(path) or ""
        for d in definitions.get(path, ()):
            if d.kind in FUNCTION_KINDS and (has(path, d, SOURCES[language])
                                             or attribute_source(split_lines(path), d, language)
                                             or takes_input(d, family, exported)):
                walk((Piece(path, d.start, d.end, d.name),), path, d, family)
    modules.save()  # what the walk parsed, for the next plan and this audit's verification
    # A sink function many flows reach is a shared utility (translation, logging): rarest sinks first.
    reached = Counter((f.pieces[-1].path, f.pieces[-1].start) for f in found)
    return sorted(found, key=lambda f: (reached[(f.pieces[-1].path, f.pieces[-1].start)], len(f.pieces), f))
