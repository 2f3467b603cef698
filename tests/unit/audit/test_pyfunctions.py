"""One walk of a module's statements finds its functions in the order `ast.walk` finds them: the flows stay the same."""

from __future__ import annotations

import ast

from reviewbot.audit.pyfunctions import functions

MODULE = '''
import os


@register(make("x"))
def view(request, default=lookup()):
    try:
        import json as loader
    except ImportError:
        def view(data):
            return parse(data)
    if request:
        import pickle as loader
    match request.kind:
        case "a":
            def handler():
                return run(os.system("ls"))
    return loader.loads(helpers.fetch(request)(1))


class Page:
    def render(self):
        return self.view().get()
'''


def test_functions_are_those_ast_walk_finds_in_its_order() -> None:
    tree = ast.parse(MODULE)
    walked = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    found = functions(tree)
    assert [f.node for name in dict.fromkeys(n.name for n in walked) for f in found[name]] == \
        [n for name in dict.fromkeys(n.name for n in walked) for n in walked if n.name == name]
    assert [f.node for f in sorted((f for fs in found.values() for f in fs), key=lambda f: f.order)] == walked
