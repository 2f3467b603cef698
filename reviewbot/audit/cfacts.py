"""What flow listing reads of a C or C++ file, pure: each function definition (with a body) and the calls in it,
from the tree-sitter parse the index makes, as the same record a Python module's facts are (pyfacts.py)."""

from __future__ import annotations

from tree_sitter import Node

from reviewbot.audit.pyfacts import Call, PyFunction, PyModule
from reviewbot.review.context.languages import language_for
from reviewbot.review.context.symbols import parse

C_LANGUAGES = frozenset({"c", "cpp"})
_NAME_KINDS = ("identifier", "field_identifier", "destructor_name", "operator_name")


def c_module_facts(path: str, text: str) -> PyModule | None:
    """The file's functions with their calls in source order; None when tree-sitter has no tree for it."""
    parsed = parse(path, text)
    if parsed.tree is None or parsed.language not in C_LANGUAGES:
        return None
    out: list[PyFunction] = []
    stack: list[Node] = [parsed.tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            name = _declared_name(node.child_by_field_name("declarator"))
            if name is not None:
                out.append(PyFunction(name, node.start_point[0] + 1, node.end_point[0] + 1, _calls(node), ()))
            continue  # C has no nested functions; a C++ lambda's calls are its function's
        stack.extend(reversed(node.children))
    return PyModule((), tuple(out))


def is_c(path: str) -> bool:
    return language_for(path) in C_LANGUAGES


def _declared_name(node: Node | None) -> str | None:
    """The function's name under its declarator (`*f(...)`, `ns::f(...)`, `Class::method(...)`)."""
    while node is not None and node.type not in _NAME_KINDS:
        if node.type in ("qualified_identifier", "function_declarator", "pointer_declarator",
                         "reference_declarator", "parenthesized_declarator", "attributed_declarator"):
            node = node.child_by_field_name("name") or node.child_by_field_name("declarator")
        else:
            return None
    return node.text.decode("utf-8", errors="replace") if node is not None and node.text is not None else None


def _calls(function: Node) -> tuple[Call, ...]:
    """Each call in the body, in source order: `f(x)` by name, `s->f(x)` / `s.f(x)` with its receiver's text."""
    out: list[Call] = []
    stack: list[Node] = [function]
    while stack:
        node = stack.pop()
        if node.type == "call_expression" and (callee := node.child_by_field_name("function")) is not None:
            line = node.start_point[0] + 1
            if callee.type == "identifier" and callee.text is not None:
                out.append(Call(None, callee.text.decode("utf-8", errors="replace"), line))
            elif callee.type == "field_expression":
                field, value = callee.child_by_field_name("field"), callee.child_by_field_name("argument")
                if field is not None and field.text is not None:
                    receiver = value.text.decode("utf-8", errors="replace") if value is not None and value.text \
                        else ""
                    out.append(Call(receiver, field.text.decode("utf-8", errors="replace"), line))
            elif callee.type == "qualified_identifier" and (name := _declared_name(callee)) is not None:
                out.append(Call(None, name, line))
        stack.extend(reversed(node.children))
    return tuple(out)
