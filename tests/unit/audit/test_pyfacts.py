"""Flow listing's facts of a Python module: what walking each function's tree found, kept per blob so an unchanged
module is never parsed again (a second plan, the verifier), and a damaged entry costs a parse, never the flows."""

from __future__ import annotations

import ast
import sqlite3
from pathlib import Path

import pytest

from reviewbot.audit.chunks import Listed
from reviewbot.audit.factcache import MemoryFacts, key_of
from reviewbot.audit.factstore import SqliteFacts
from reviewbot.audit.flowcontext import plan_flow, render_flow, tree_source
from reviewbot.audit.flowpaths import find_flows
from reviewbot.audit.pyfactcache import PythonFacts
from reviewbot.audit.pyfacts import bindings, decode, encode, module_facts
from reviewbot.audit.pyfunctions import functions
from reviewbot.repos.index_store import SqliteIndex
from reviewbot.review.context.snapshot import MemorySnapshot
from tests.unit.audit.test_flow_requests import plan, tree
from tests.unit.audit.test_flowcontext import FILES, finding
from tests.unit.audit.test_pyfunctions import MODULE


def test_each_function_s_calls_and_imports_are_those_its_own_tree_holds_in_ast_walk_s_order() -> None:
    tree_ = ast.parse(MODULE)
    facts = module_facts(MODULE)
    assert facts is not None
    walked = [f for fs in functions(tree_).values() for f in fs]
    assert [(f.name, f.start, f.end) for f in facts.functions] == \
        [(f.node.name, f.node.lineno, f.node.end_lineno) for f in sorted(walked, key=lambda f: f.order)]
    for got, function in zip(facts.functions, sorted(walked, key=lambda f: f.order), strict=True):
        every = list(ast.walk(function.node))  # what the listing walked per function before these records
        calls = sorted((n for n in every if isinstance(n, ast.Call)), key=lambda c: (c.lineno, c.col_offset))
        assert [(c.name, c.line) for c in got.calls] == \
            [(c.func.id if isinstance(c.func, ast.Name) else c.func.attr, c.lineno) for c in calls
             if isinstance(c.func, ast.Name | ast.Attribute)]
        assert got.imports == tuple(b for n in every if isinstance(n, ast.Import | ast.ImportFrom)
                                    for b in bindings(n))
    view = facts.by_name["view"][0]  # the nested `view` is the outer one's too, and comes after it
    assert ("helpers", "fetch") in {(c.receiver, c.name) for c in view.calls}
    assert [name for name, _ in view.imports] == ["loader", "loader"]  # json, then pickle: the later one wins
    assert dict(view.imports)["loader"] == ("pickle", 0, None)


def test_the_record_reads_back_as_written_and_a_text_that_is_not_python_has_none() -> None:
    facts = module_facts(MODULE)
    assert decode(encode(facts)) == facts
    assert module_facts("{% if user %}\n  <p>") is None and decode(encode(None)) is None


def test_a_second_listing_of_the_same_tree_parses_no_module_and_finds_the_same_flows(tmp_path: Path) -> None:
    files = tree(flows=3)
    audit = plan(files)
    first = PythonFacts(SqliteFacts(tmp_path))
    flows = find_flows(files, audit.definitions, audit.files, first)
    assert flows and first.parsed > 0
    again = PythonFacts(SqliteFacts(tmp_path))  # another process: only the file on disk is shared
    assert find_flows(files, audit.definitions, audit.files, again) == flows == find_flows(
        files, audit.definitions, audit.files)
    assert again.parsed == 0


def test_a_damaged_entry_is_parsed_again_and_the_flows_stay_the_same(tmp_path: Path) -> None:
    files = tree(flows=2)
    audit = plan(files)
    cache = SqliteFacts(tmp_path)
    flows = find_flows(files, audit.definitions, audit.files, PythonFacts(cache))
    with sqlite3.connect(cache.path) as db:
        db.execute("UPDATE python1 SET module = '[1, 2'")
    fresh = PythonFacts(SqliteFacts(tmp_path))
    assert find_flows(files, audit.definitions, audit.files, fresh) == flows
    assert fresh.parsed > 0


def test_the_verifier_s_flow_is_the_same_from_the_stores_and_its_modules_are_not_parsed_twice(
        tmp_path: Path) -> None:
    snapshot = MemorySnapshot(FILES)
    callers = lambda path: [("app/urls.py", 1.0, ["search"])] if path == "app/views.py" else []  # noqa: E731
    plain = plan_flow(finding(3), tree_source(snapshot, callers))
    facts, index = MemoryFacts(), SqliteIndex(tmp_path / "index")
    stored = tree_source(snapshot, callers, index, facts)
    assert plan_flow(finding(3), stored) == plain
    assert render_flow(plain.blocks, FILES.get).count("cursor.execute") == 1
    assert stored.python.parsed > 0 and facts.python
    again = tree_source(snapshot, callers, index, facts)  # the next verification: every module known
    assert plan_flow(finding(3), again) == plain and again.python.parsed == 0


def test_a_listed_tree_knows_the_blob_ids_of_its_listed_files_only_as_the_facts_cache_keys_them() -> None:
    listed = Listed(MemorySnapshot({**FILES, ".env": "SECRET=1\n"}), sorted(FILES))
    assert set(listed.blob_ids()) == set(FILES)
    assert all(listed.blob_ids()[p] == key_of(p, text)[0] for p, text in FILES.items())


def test_a_method_s_class_and_bindings_read_back_and_a_record_of_the_older_format_is_a_miss() -> None:
    text = ("class Middleware:\n    def __init__(self, name, get_response):\n        engine = import_module(name)\n"
            "        self.Store = engine.Store\n        self.get_response = get_response\n"
            "        handler: object = load\n\n    def process(self, key):\n        s = self.Store(key)\n"
            "        return s.load(), Store(key).save()\n")
    facts = module_facts(text)
    assert facts is not None
    init, process = facts.by_name["__init__"][0], facts.by_name["process"][0]
    assert init.owner == process.owner == "Middleware"
    # what a parameter holds is the caller's: `self.get_response` is not bound to a known function
    assert [(b.target, b.value, b.instance) for b in init.bound] == [("engine", "import_module", True),
                                                                      ("self.Store", "engine.Store", False),
                                                                      ("handler", "load", False)]
    assert [(b.target, b.value, b.instance) for b in process.bound] == [("s", "self.Store", True)]
    assert ("Store()", "save") in {(c.receiver, c.name) for c in process.calls}
    assert decode(encode(facts)) == facts
    older = encode(facts).replace("[2,", "[", 1)  # the format before owners and bindings: parsed again
    with pytest.raises(ValueError):
        decode(older)
