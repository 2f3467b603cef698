"""What flow listing reads of a Python module, pure: its imports and each function's calls and imports, from one
`ast` parse and one walk, as a record that is kept per blob (factstore.py), so an unchanged file is never parsed."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field

from reviewbot.audit.pybindings import Bound, bound, owners
from reviewbot.audit.pyfunctions import functions
from reviewbot.review.context.pyparse import parse_python

Imported = tuple[str, int, str | None]  # (module, relative level, the name taken from it or None for the module)
FORMAT = 2  # stored records of another format are misses (parsed again): 2 added each function's class and bindings
Binding = tuple[str, Imported]  # local name -> what it imports; applied in order (a later one of a name wins)
# Nodes that hold no call, import or function: not walked (a third of a module's nodes, the names' contexts).
_LEAVES = (ast.Name, ast.Constant, ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.alias)


@dataclass(frozen=True)
class Call:
    receiver: str | None  # `helpers` in `helpers.run_query(q)`; None for a bare name
    name: str
    line: int


@dataclass(frozen=True)
class PyFunction:
    """One function or method: its `def` line to its last, its calls in source order, its own imports, the class
    it is a method of and what it binds (pybindings.py)."""

    name: str
    start: int
    end: int
    calls: tuple[Call, ...]
    imports: tuple[Binding, ...]
    owner: str | None = None
    bound: tuple[Bound, ...] = ()


@dataclass(frozen=True)
class PyModule:
    imports: tuple[Binding, ...]  # the module's top-level statements only
    functions: tuple[PyFunction, ...]  # in `ast.walk`'s order: the first of a name around a line is the one
    by_name: dict[str, list[PyFunction]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for f in self.functions:
            self.by_name.setdefault(f.name, []).append(f)


def module_facts(text: str) -> PyModule | None:
    """The module's facts, or None when the text is not Python (a template, another version)."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError):
        return None
    found = [f for fs in functions(tree).values() for f in fs]
    found.sort(key=lambda f: f.order)
    inside = _inside(tree, {id(f.node) for f in found})
    classes = owners(tree)
    out = []
    for f in found:
        calls, imports = inside.get(id(f.node), ([], []))
        calls.sort(key=lambda c: (c[0], c[1]))  # by place; stable: a call before the calls inside it
        imports.sort(key=lambda i: (i[0], i[1]))  # `ast.walk`'s order: by depth, then position
        out.append(PyFunction(f.node.name, f.node.lineno, f.node.end_lineno or 0,
                              tuple(c for _, _, c in calls), tuple(b for _, _, n in imports for b in bindings(n)),
                              classes.get(id(f.node)), bound(f.node)))
    top = tuple(b for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom) for b in bindings(n))
    return PyModule(top, tuple(out))


def _inside(tree: ast.Module, wanted: set[int]) -> dict[int, tuple[list[tuple[int, int, Call]],
                                                                   list[tuple[int, int, ast.stmt]]]]:
    """One preorder walk of the module: each call and import given to every function around it (a nested
    function's calls are its outer function's too, as `ast.walk` of the outer one finds them)."""
    out: dict[int, tuple[list[tuple[int, int, Call]], list[tuple[int, int, ast.stmt]]]] = {}
    stack: list[tuple[ast.AST, int, tuple[int, ...]]] = [(tree, 0, ())]
    preorder = 0
    while stack:
        node, depth, around = stack.pop()
        preorder += 1
        if isinstance(node, ast.Call) and around:
            call = _call(node)
            if call is not None:
                for owner in around:
                    out[owner][0].append((node.lineno, node.col_offset, call))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for owner in around:
                out[owner][1].append((depth, preorder, node))
        elif id(node) in wanted:
            out[id(node)] = ([], [])
            around = (*around, id(node))
        elif not around and isinstance(node, ast.expr):
            continue  # an expression outside functions holds no function (a `def` is a statement)
        children = [c for c in ast.iter_child_nodes(node) if not isinstance(c, _LEAVES)]
        children.reverse()  # popped in source order: preorder
        stack += [(child, depth + 1, around) for child in children]
    return out


def _call(node: ast.Call) -> Call | None:
    if isinstance(node.func, ast.Name):
        return Call(None, node.func.id, node.lineno)
    if isinstance(node.func, ast.Attribute):
        value = node.func.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name | ast.Attribute):
            return Call(f"{ast.unparse(value.func)}()", node.func.attr, node.lineno)  # a method of what it returns
        return Call(ast.unparse(value) if isinstance(value, ast.Name | ast.Attribute) else "", node.func.attr,
                    node.lineno)
    return None


def bindings(node: ast.stmt) -> list[Binding]:
    if isinstance(node, ast.Import):
        return [(a.asname or a.name.split(".")[0], (a.name if a.asname else a.name.split(".")[0], 0, None))
                for a in node.names]
    if isinstance(node, ast.ImportFrom):
        return [(a.asname or a.name, (node.module or "", node.level, a.name)) for a in node.names]
    return []


def encode(module: PyModule | None) -> str:
    """As stored: JSON lists (null for a text that is not Python)."""
    if module is None:
        return "null"
    return json.dumps([FORMAT, [list(_flat(b)) for b in module.imports],
                       [[f.name, f.start, f.end, [[c.receiver, c.name, c.line] for c in f.calls],
                         [list(_flat(b)) for b in f.imports], f.owner,
                         [[b.target, b.value, b.instance] for b in f.bound]] for f in module.functions]],
                      separators=(",", ":"))


def decode(raw: str) -> PyModule | None:
    """`encode`'s inverse; raises ValueError or TypeError for a text it did not write."""
    data = json.loads(raw)
    if data is None:
        return None
    version, top, funcs = data
    if version != FORMAT:
        raise ValueError(f"stored facts of format {version}, not {FORMAT}")
    return PyModule(tuple(_binding(b) for b in top),
                    tuple(PyFunction(str(name), int(start), int(end), tuple(Call(r, str(n), int(ln))
                                                                             for r, n, ln in calls),
                                     tuple(_binding(b) for b in imports), None if owner is None else str(owner),
                                     tuple(Bound(str(t), str(v), bool(i)) for t, v, i in held))
                          for name, start, end, calls, imports, owner, held in funcs))


def _flat(b: Binding) -> tuple[str, str, int, str | None]:
    return b[0], b[1][0], b[1][1], b[1][2]


def _binding(row: list[object]) -> Binding:
    name, module, level, taken = row
    if not isinstance(name, str) or not isinstance(module, str) or not isinstance(level, int) \
            or not (taken is None or isinstance(taken, str)):
        raise TypeError("not a stored import")
    return name, (module, level, taken)
