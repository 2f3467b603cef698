"""A candidate's flow, pure: callees across files through imports (inside the function too), re-exports, relative
imports and methods; its callers and evidence windows; the token bound; the code a verifier asks for."""

from __future__ import annotations

from reviewbot.audit.flowcontext import FlowSource, asked_code, plan_flow, render_flow, tree_source, with_callee_steps
from reviewbot.review.context.snapshot import MemorySnapshot
from reviewbot.review.findings.schema import Finding

VIEWS = """def search(request):
    from app.db import run_query
    return run_query(request.GET["q"])


class Report:
    def build(self, owner):
        return self.render(owner)

    def render(self, owner):
        from .exporters import export
        return export(owner)
"""
FILES = {
    "app/views.py": VIEWS,
    "app/db/__init__.py": "from .helpers import run_query\n",
    "app/db/helpers.py": "def run_query(q):\n    return cursor.execute('SELECT %s' % q)\n",
    "app/exporters.py": "def export(owner):\n    return os.system('export ' + owner)\n",
    "app/urls.py": "from app.views import search\n\nroutes = [search]\n",
}


def finding(line: int, **extra: object) -> Finding:
    return Finding.model_validate({"path": "app/views.py", "line": line, "severity": "critical",
                                   "category": "security", "title": "Injection", "body": "b", "confidence": 0.9,
                                   **extra})


def source(files: dict[str, str] = FILES) -> FlowSource:
    return tree_source(MemorySnapshot(files), lambda path: [("app/urls.py", 1.0, ["search"])]
                       if path == "app/views.py" else [])


def test_a_function_local_import_is_followed_through_the_package_re_export_to_the_definition() -> None:
    flow = plan_flow(finding(3), source())
    assert [(c.name, c.path, c.line) for c in flow.callees] == [("run_query", "app/db/helpers.py", 3)]
    shown = render_flow(flow.blocks, FILES.get)
    assert "cursor.execute('SELECT %s' % q)" in shown and "### app/urls.py" in shown  # the callee and the caller
    assert shown.index("app/db/helpers.py") < shown.index("app/urls.py")  # the sink's side first


def test_a_method_call_on_self_and_a_relative_import_inside_it_reach_the_other_module() -> None:
    flow = plan_flow(finding(12), source())
    assert [(c.name, c.path) for c in flow.callees] == [("export", "app/exporters.py")]
    assert flow.function == "render"
    stepped = with_callee_steps(finding(12), flow)
    assert [(e.path, e.line, e.note) for e in stepped.evidence] == [("app/exporters.py", 1, "export, called by render")]


def test_evidence_in_another_file_is_shown_and_the_model_s_evidence_there_is_not_repeated_as_a_step() -> None:
    given = finding(3, evidence=[{"path": "app/db/helpers.py", "line": 2, "role": "sink", "note": "sql"}])
    flow = plan_flow(given, source())
    assert flow.blocks[0].reason == "its sink line" and with_callee_steps(given, flow) == given


def test_the_flow_stays_within_its_token_bound() -> None:
    big = FILES | {"app/db/helpers.py": "def run_query(q):\n" + "    x = 1\n" * 20_000}
    flow = plan_flow(finding(3), source(big), budget=500)
    assert sum(len(render_flow([b], big.get)) for b in flow.blocks) <= 500 * 4


def test_the_code_a_verifier_names_is_found_by_symbol_or_path_and_nothing_when_the_tree_lacks_it() -> None:
    src = source()
    assert [b.path for b in asked_code(["exporters.export"], "app/views.py", src, ())] == ["app/exporters.py"]
    assert [b.path for b in asked_code(["app/urls.py"], "app/views.py", src, ())] == ["app/urls.py"]
    assert asked_code(["vendored_exec", "fastdb/core.py"], "app/views.py", src, ()) == ()


def test_only_the_tree_s_listed_files_are_read_whatever_the_verifier_names() -> None:
    class Listed(MemorySnapshot):  # a local audit lists git's files: an ignored .env is on disk, not in the tree
        def paths(self) -> list[str]:
            return [p for p in super().paths() if p != ".env"]

    src = tree_source(Listed(FILES | {".env": "SECRET=1\n"}), lambda path: [])
    assert asked_code([".env", "../.env", "/etc/passwd"], "app/views.py", src, ()) == ()
