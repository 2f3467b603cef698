"""Which definitions in other files a finding's function calls, pure: Python's imports read with `ast` (at module
level and inside the function, re-exports followed), methods of its own class, then the repository index by name."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reviewbot.audit.callgraph import MAX_DEFINERS, MIN_NAME
from reviewbot.audit.pyfunctions import Function, functions
from reviewbot.review.context.symbols import Definition, names_on_lines, parse

Locate = Callable[[str, str], Sequence[tuple[str, Definition]]]  # (name, near path) -> where it is defined
Defs = Callable[[str], Sequence[Definition]]  # path -> what the file defines
MAX_HOPS = 3  # re-exports followed: `from .helpers import run_query` in a package's __init__.py
Imported = tuple[str, int, str | None]  # (module, relative level, the name taken from it or None for the module)


@dataclass(frozen=True)
class Callee:
    name: str
    path: str
    definition: Definition
    line: int  # where the finding's function calls it


@dataclass(frozen=True)
class Call:
    receiver: str | None  # `helpers` in `helpers.run_query(q)`; None for a bare name
    name: str
    line: int


def innermost(definitions: Sequence[Definition], line: int) -> Definition | None:
    """The definition around `line` (a method, not its class)."""
    around = [d for d in definitions if d.start <= line <= d.end and d.kind in ("function", "method")]
    return min(around, key=lambda d: (d.end - d.start, d.start)) if around else None


def callees(path: str, text: str, function: Definition, definitions: Defs, read: Callable[[str], str | None],
            locate: Locate, *, elsewhere: bool = True) -> list[Callee]:
    """The definitions in other files (`elsewhere`; else in any file) that `function` (of `path`) calls, in the
    order of its calls."""
    python = path.endswith(".py")
    tree = parsed_python(text) if python else None
    calls = _python_calls(tree, function) if tree is not None else _named_calls(path, text, function)
    imports = _imports(tree, function) if tree is not None else {}
    found: list[Callee] = []
    seen: set[tuple[str, int]] = set()
    for call in calls:
        for where, definition in _resolve(path, call, function, imports, definitions, read, locate):
            if (where != path or (not elsewhere and definition.start != function.start)) \
                    and (where, definition.start) not in seen:
                seen.add((where, definition.start))
                found.append(Callee(call.name, where, definition, call.line))
    return found


@functools.lru_cache(maxsize=128)  # a flow's functions are walked one after another in the same files
def parsed_python(text: str) -> ast.Module | None:
    """The module's tree, read only (shared by the callers of the cache), or None when the text is not Python."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):  # not valid Python (a template, another version): names instead
        return None


def forget_trees() -> None:
    """Drop the parsed trees kept for a walk over many files (memory, between audits)."""
    parsed_python.cache_clear()
    _functions.cache_clear()
    _calls_of.cache_clear()


@functools.lru_cache(maxsize=128)
def _functions(tree: ast.Module) -> dict[str, list[Function]]:
    """The module's functions and methods by name, with their calls and imports, walked once per tree."""
    return functions(tree)


def _node(tree: ast.Module, function: Definition) -> Function | None:
    return next((f for f in _functions(tree).get(function.name, ())
                 if f.node.lineno <= function.end and (f.node.end_lineno or 0) >= function.start), None)


def _python_calls(tree: ast.Module, function: Definition) -> list[Call]:
    node = _node(tree, function)
    return list(_calls_of(node)) if node is not None else []


@functools.lru_cache(maxsize=1024)  # a function reached by several flows is read once
def _calls_of(node: Function) -> tuple[Call, ...]:
    calls = node.calls
    out = []
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        if isinstance(call.func, ast.Name):
            out.append(Call(None, call.func.id, call.lineno))
        elif isinstance(call.func, ast.Attribute):
            receiver = ast.unparse(call.func.value) if isinstance(call.func.value, ast.Name | ast.Attribute) else ""
            out.append(Call(receiver, call.func.attr, call.lineno))
    return tuple(out)


def _named_calls(path: str, text: str, function: Definition) -> list[Call]:
    """Other languages: the names called on the function's lines, as tree-sitter finds them."""
    called = names_on_lines(parse(path, text), set(range(function.start, function.end + 1)))
    return [Call(None, name, function.start) for name, is_call in called.items() if is_call]


def _imports(tree: ast.Module, function: Definition | None) -> dict[str, Imported]:
    """Local name -> what it imports: the module's top-level imports, then the function's own (which win)."""
    nodes: list[ast.stmt] = list(tree.body)
    if function is not None and (node := _node(tree, function)) is not None:
        nodes += node.walk_imports()
    out: dict[str, Imported] = {}
    for n in nodes:
        if isinstance(n, ast.Import):
            for alias in n.names:
                out[alias.asname or alias.name.split(".")[0]] = (alias.name if alias.asname else
                                                                 alias.name.split(".")[0], 0, None)
        elif isinstance(n, ast.ImportFrom):
            for alias in n.names:
                out[alias.asname or alias.name] = (n.module or "", n.level, alias.name)
    return out


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


def _named_in(file: str, name: str, definitions: Defs, read: Callable[[str], str | None],
              hops: int = MAX_HOPS) -> list[tuple[str, Definition]]:
    """`name` as `file` defines it, or as it imports it from elsewhere (a re-export), followed a few hops."""
    own = [d for d in definitions(file) if d.name == name]
    if own or hops == 0 or not file.endswith(".py"):
        return [(file, d) for d in own[:1]]
    tree = parsed_python(read(file) or "")
    imported = _imports(tree, None).get(name) if tree is not None else None
    if imported is None:
        return []
    module, level, taken = imported
    target = _module_file(file, module, level, read)
    return _named_in(target, taken or name, definitions, read, hops - 1) if target else []


def _resolve(path: str, call: Call, function: Definition, imports: dict[str, Imported], definitions: Defs,
             read: Callable[[str], str | None], locate: Locate) -> list[tuple[str, Definition]]:
    if call.receiver in ("self", "cls") and function.parent:  # a method of the function's own class
        return [(path, d) for d in definitions(path) if d.name == call.name and d.parent == function.parent]
    key = call.receiver.split(".")[0] if call.receiver else call.name
    if key in imports:
        module, level, taken = imports[key]
        if call.receiver is None:  # `from db.helpers import run_query`; run_query(q)
            target = _module_file(path, module, level, read)
            return _named_in(target, taken or call.name, definitions, read) if target else []
        dotted = ".".join(p for p in (module, taken, *call.receiver.split(".")[1:]) if p)
        target = _module_file(path, dotted, level, read)  # `from db import helpers`; helpers.run_query(q)
        if target is not None:
            return _named_in(target, call.name, definitions, read)
    if call.receiver is None and (own := [d for d in definitions(path) if d.name == call.name]):
        return [(path, own[0])]
    if len(call.name) < MIN_NAME or call.name.startswith("__"):
        return []
    found = list(locate(call.name, path))  # the index: a method, or a name from a language without imports here
    return found if len(found) <= MAX_DEFINERS else []
