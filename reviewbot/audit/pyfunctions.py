"""A Python module's functions in `ast.walk`'s order, found walking its statements only, pure."""

from __future__ import annotations

import ast
from dataclasses import dataclass

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True, eq=False)
class Function:
    """One function or method and its place in `ast.walk`'s order: (depth in the tree, preorder)."""

    node: FunctionNode
    order: tuple[int, int]


def functions(tree: ast.Module) -> dict[str, list[Function]]:
    """name -> its functions and methods, in `ast.walk`'s order. A `def` is a statement, so only statement lists
    are walked (bodies, branches, handlers, cases), not the expressions that are most of a module's nodes."""
    found: list[Function] = []
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    preorder = 0
    while stack:
        node, depth = stack.pop()
        preorder += 1
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(Function(node, (depth, preorder)))
        children: list[tuple[ast.AST, int]] = []
        for name in node._fields:  # in the fields' order, as `ast.walk` visits them
            value = getattr(node, name, None)
            if not isinstance(value, list):
                continue
            for item in value:
                if isinstance(item, ast.stmt):
                    children.append((item, depth + 1))
                elif isinstance(item, ast.ExceptHandler | ast.match_case):  # one node between: its body is deeper
                    children += [(s, depth + 2) for s in item.body]
        children.reverse()
        stack += children
    out: dict[str, list[Function]] = {}
    for function in sorted(found, key=lambda f: f.order):
        out.setdefault(function.node.name, []).append(function)
    return out
