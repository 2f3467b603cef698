"""A Python module's functions with the calls and imports inside each, from one walk of its tree, pure."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
ImportNode = ast.Import | ast.ImportFrom


@dataclass(eq=False)  # compared and hashed by identity: a cache key for the calls read from it
class Function:
    """One function or method and what `ast.walk` of it would find (decorators, defaults, nested functions)."""

    node: FunctionNode
    order: tuple[int, int]  # (depth, preorder): sorted, ast.walk's breadth-first order
    calls: list[ast.Call] = field(default_factory=list)  # in preorder
    imports: list[tuple[int, int, ImportNode]] = field(default_factory=list)  # (depth, preorder, node)

    def walk_imports(self) -> list[ImportNode]:
        """Its imports in `ast.walk`'s order (a later one of the same name wins, so the order matters)."""
        return [n for _, _, n in sorted(self.imports, key=lambda i: (i[0], i[1]))]


def functions(tree: ast.Module) -> dict[str, list[Function]]:
    """name -> its functions and methods, in `ast.walk`'s order; one depth-first walk of the tree, where walking
    each function again (per call looked up) cost more than the parse."""
    found: list[Function] = []
    stack: list[tuple[ast.AST, int, tuple[Function, ...]]] = [(tree, 0, ())]
    preorder = 0
    while stack:
        node, depth, around = stack.pop()
        preorder += 1
        if isinstance(node, ast.Call):
            for f in around:
                f.calls.append(node)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for f in around:
                f.imports.append((depth, preorder, node))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = Function(node, (depth, preorder))
            found.append(function)
            around = (*around, function)
        # Children pushed last-first: popped in source order, so `preorder` is the tree's preorder.
        stack.extend((child, depth + 1, around) for child in reversed(list(ast.iter_child_nodes(node))))
    out: dict[str, list[Function]] = {}
    for function in sorted(found, key=lambda f: f.order):
        out.setdefault(function.node.name, []).append(function)
    return out
