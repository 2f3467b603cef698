"""What a Python function binds that a later call goes through, pure: `x = Foo(a)` (an instance of Foo),
`handler = module.func` and `self.store = engine.Store` (a name or attribute holding a function or a class)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from reviewbot.audit.pyfunctions import FunctionNode


@dataclass(frozen=True)
class Bound:
    """`target = value` in a function: `value` dotted (`engine.SessionStore`); `instance` when it was called
    (`target` holds what `value` returns: an instance of a class), else `target` is another name for `value`."""

    target: str
    value: str
    instance: bool


def dotted(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of names and attributes, None for anything else (a subscript, a call)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def bound(function: FunctionNode) -> tuple[Bound, ...]:
    """The function's own simple assignments, in source order (not those of functions nested in it)."""
    out: list[Bound] = []
    arguments = function.args
    # a parameter is whatever the caller passed (`self.get_response = get_response`): not a binding known here
    unknown = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                               *(x for x in (arguments.vararg, arguments.kwarg) if x is not None))}
    for node in _statements(function.body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        name = dotted(target) if isinstance(target, ast.Name | ast.Attribute) else None
        called = isinstance(value, ast.Call)
        source = dotted(value.func if isinstance(value, ast.Call) else value)
        if name is not None and source is not None and source.split(".")[0] not in unknown - {"self", "cls"}:
            out.append(Bound(name, source, called))
    return tuple(out)


def _statements(body: Iterable[ast.stmt]) -> Iterable[ast.stmt]:
    """Statements of a body and its branches, loops, `with` and `try` blocks; not nested functions or classes."""
    for node in body:
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(node, field, ()))
        for handler in getattr(node, "handlers", ()):
            yield from _statements(handler.body)


def owners(tree: ast.Module) -> dict[int, str]:
    """id of each method's node -> the name of the class whose body holds it (directly, or under an `if`); walks
    statements outside functions only (a class defined inside a function is not looked at)."""
    out: dict[int, str] = {}
    stack: list[tuple[list[ast.stmt], str | None]] = [(tree.body, None)]
    while stack:
        body, owner = stack.pop()
        for node in _statements(body):
            if isinstance(node, ast.ClassDef):
                stack.append((node.body, node.name))
            elif owner is not None and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out[id(node)] = owner
    return out
