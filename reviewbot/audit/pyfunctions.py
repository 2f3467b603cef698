"""A Python module's functions, found walking its statements only, with the calls and imports inside each, pure."""

from __future__ import annotations

import ast
from dataclasses import dataclass

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
ImportNode = ast.Import | ast.ImportFrom


@dataclass(eq=False)  # compared and hashed by identity: a cache key for the calls read from it
class Function:
    """One function or method; what `ast.walk` of it finds (decorators, defaults, nested functions), on demand."""

    node: FunctionNode
    order: tuple[int, int]  # (depth in the tree, preorder): sorted, ast.walk's breadth-first order
    _read: tuple[list[ast.Call], list[ImportNode]] | None = None

    @property
    def calls(self) -> list[ast.Call]:
        """Its calls, in preorder (a call before the calls inside it, as `ast.walk` gives them)."""
        return self._walk()[0]

    def walk_imports(self) -> list[ImportNode]:
        """Its imports in `ast.walk`'s order (a later one of the same name wins, so the order matters)."""
        return self._walk()[1]

    def _walk(self) -> tuple[list[ast.Call], list[ImportNode]]:
        if self._read is None:  # once per function, and only for those a flow reaches
            calls: list[ast.Call] = []
            imports: list[tuple[int, int, ImportNode]] = []
            stack: list[tuple[ast.AST, int]] = [(self.node, 0)]
            preorder = 0
            while stack:
                node, depth = stack.pop()
                preorder += 1
                if isinstance(node, ast.Call):
                    calls.append(node)
                elif isinstance(node, ast.Import | ast.ImportFrom):
                    imports.append((depth, preorder, node))
                children = list(ast.iter_child_nodes(node))
                children.reverse()  # popped in source order: preorder
                stack += [(child, depth + 1) for child in children]
            # Breadth-first is by depth, then by position, which preorder orders within one depth.
            self._read = calls, [n for _, _, n in sorted(imports, key=lambda i: (i[0], i[1]))]
        return self._read


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
