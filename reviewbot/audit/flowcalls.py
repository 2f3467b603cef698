"""Which definitions in other files a finding's function calls, pure: Python's imports read with `ast` (at module
level and inside the function, re-exports followed), methods of its own class, calls through what it or its class
binds (boundcalls.py), then the repository index by name; C and C++ through their calls as tree-sitter finds them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reviewbot.audit.boundcalls import MAX_IMPLEMENTATIONS, Through, through, visible
from reviewbot.audit.callgraph import MAX_DEFINERS, MIN_NAME
from reviewbot.audit.cfacts import is_c
from reviewbot.audit.pyfactcache import PythonFacts
from reviewbot.audit.pyfacts import Call, Imported, PyFunction, PyModule
from reviewbot.review.context.symbols import Definition, names_on_lines, parse

Locate = Callable[[str, str], Sequence[tuple[str, Definition]]]  # (name, near path) -> where it is defined
Defs = Callable[[str], Sequence[Definition]]  # path -> what the file defines
PyFacts = Callable[[str, str], PyModule | None]  # (path, text) -> the module's facts (pyfacts.py), None if not Python
MAX_HOPS = 3  # re-exports followed: `from .helpers import run_query` in a package's __init__.py


@dataclass(frozen=True)
class Callee:
    name: str
    path: str
    definition: Definition
    line: int  # where the finding's function calls it


def innermost(definitions: Sequence[Definition], line: int) -> Definition | None:
    """The definition around `line` (a method, not its class)."""
    around = [d for d in definitions if d.start <= line <= d.end and d.kind in ("function", "method")]
    return min(around, key=lambda d: (d.end - d.start, d.start)) if around else None


def callees(path: str, text: str, function: Definition, definitions: Defs, read: Callable[[str], str | None],
            locate: Locate, *, elsewhere: bool = True, facts: PyFacts | None = None) -> list[Callee]:
    """The definitions in other files (`elsewhere`; else in any file) that `function` (of `path`) calls, in the
    order of its calls. `facts`: each Python module's calls and imports (parsed here when not given)."""
    python_facts = facts or PythonFacts()  # kept for this call's files only
    module = python_facts(path, text) if path.endswith(".py") or is_c(path) else None
    node = _node(module, function) if module is not None else None
    calls = (list(node.calls) if node is not None else []) if module is not None \
        else _named_calls(path, text, function)
    imports = _imports(module, node) if module is not None else {}
    bound = visible(module, node) if module is not None and node is not None else {}
    found: list[Callee] = []
    seen: set[tuple[str, int]] = set()
    for call in calls:
        via = through(call, bound) if bound else None
        if via is not None:
            reached = _through(path, via, function, imports, definitions, read, locate, python_facts)
        else:
            reached = _resolve(path, call, function, imports, definitions, read, locate, python_facts)
        for where, definition in reached:
            if (where != path or (not elsewhere and definition.start != function.start)) \
                    and (where, definition.start) not in seen:
                seen.add((where, definition.start))
                found.append(Callee(call.name, where, definition, call.line))
    return found


def _through(path: str, via: Through, function: Definition, imports: dict[str, Imported], definitions: Defs,
             read: Callable[[str], str | None], locate: Locate, facts: PyFacts) -> list[tuple[str, Definition]]:
    """What a call through a binding reaches: the bound function or class; for a method on an instance, that
    method of the instance's class. A class bound from a module chosen at run time (`engine.Store` after
    `engine = import_module(setting)`) is each class of that name the index knows, a few at most."""
    found = _resolve(path, via.call, function, imports, definitions, read, locate, facts)
    if not found and via.call.receiver and len(via.call.name) >= MIN_NAME:
        found = [(w, d) for w, d in locate(via.call.name, path) if d.kind == "class"]
        found = found if len(found) <= MAX_IMPLEMENTATIONS else []
    if via.method is None:
        return found
    return [(w, m) for w, d in found if d.kind == "class"
            for m in definitions(w) if m.name == via.method and m.parent == d.name]


def _node(module: PyModule, function: Definition) -> PyFunction | None:
    return next((f for f in module.by_name.get(function.name, ())
                 if f.start <= function.end and f.end >= function.start), None)


def _named_calls(path: str, text: str, function: Definition) -> list[Call]:
    """Other languages: the names called on the function's lines, as tree-sitter finds them."""
    called = names_on_lines(parse(path, text), set(range(function.start, function.end + 1)))
    return [Call(None, name, function.start) for name, is_call in called.items() if is_call]


def _imports(module: PyModule, function: PyFunction | None) -> dict[str, Imported]:
    """Local name -> what it imports: the module's top-level imports, then the function's own (which win)."""
    return dict((*module.imports, *(function.imports if function is not None else ())))


def _module_file(near: str, module: str, level: int, read: Callable[[str], str | None]) -> str | None:
    """The tree's file of a module: relative to the importing file's package, else from the root or any folder
    above the importing file (a `src/` layout)."""
    folders = near.split("/")[:-1]
    roots = ["/".join(folders[:len(folders) - level + 1])] if level else \
        ["/".join(folders[:i]) for i in range(len(folders) + 1)]
    tail = module.replace(".", "/")
    for root in roots:
        base = "/".join(p for p in (root, tail) if p)
        for candidate in (f"{base}.py", f"{base}/__init__.py"):
            if base and read(candidate) is not None:
                return candidate
    return None


def _named_in(file: str, name: str, definitions: Defs, read: Callable[[str], str | None], facts: PyFacts,
              hops: int = MAX_HOPS) -> list[tuple[str, Definition]]:
    """`name` as `file` defines it, or as it imports it from elsewhere (a re-export), followed a few hops."""
    own = [d for d in definitions(file) if d.name == name]
    if own or hops == 0 or not file.endswith(".py"):
        return [(file, d) for d in own[:1]]
    facts_of_file = facts(file, read(file) or "")
    imported = _imports(facts_of_file, None).get(name) if facts_of_file is not None else None
    if imported is None:
        return []
    module, level, taken = imported
    target = _module_file(file, module, level, read)
    return _named_in(target, taken or name, definitions, read, facts, hops - 1) if target else []


def _resolve(path: str, call: Call, function: Definition, imports: dict[str, Imported], definitions: Defs,
             read: Callable[[str], str | None], locate: Locate, facts: PyFacts) -> list[tuple[str, Definition]]:
    if call.receiver in ("self", "cls") and function.parent:  # a method of the function's own class
        return [(path, d) for d in definitions(path) if d.name == call.name and d.parent == function.parent]
    key = call.receiver.split(".")[0] if call.receiver else call.name
    if key in imports:
        module, level, taken = imports[key]
        if call.receiver is None:  # `from db.helpers import run_query`; run_query(q)
            target = _module_file(path, module, level, read)
            return _named_in(target, taken or call.name, definitions, read, facts) if target else []
        dotted = ".".join(p for p in (module, taken, *call.receiver.split(".")[1:]) if p)
        target = _module_file(path, dotted, level, read)  # `from db import helpers`; helpers.run_query(q)
        if target is not None:
            return _named_in(target, call.name, definitions, read, facts)
    if call.receiver is None and (own := [d for d in definitions(path) if d.name == call.name]):
        return [(path, own[0])]
    if len(call.name) < MIN_NAME or call.name.startswith("__"):
        return []
    found = list(locate(call.name, path))  # the index: a method, or a name from a language without imports here
    return found if len(found) <= MAX_DEFINERS else []
