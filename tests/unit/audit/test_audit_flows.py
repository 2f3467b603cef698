"""The plan follows flows: a source and the sink it feeds in one request, function-local imports followed, the
context within its token bound, elided docstrings keep line numbers true, and the same tree plans the same bytes."""

from __future__ import annotations

from reviewbot.audit.chunkcontext import plan_context
from reviewbot.audit.chunkprompt import numbered
from reviewbot.audit.contextblock import render_block
from reviewbot.audit.elision import elided_lines
from reviewbot.audit.planner import plan_audit
from reviewbot.review.context.snapshot import MemorySnapshot

VIEW = ("def download(request):\n    name = request.GET['name']\n    return fetch_report(name)\n")
REPORTS = ("import subprocess\n\n\ndef fetch_report(name):\n    return subprocess.check_output(['cat', name])\n")
LOCAL = ("def export(request):\n    from web.render import page_for\n    return page_for(request.COOKIES['page'])\n")
RENDER = "def page_for(page):\n    return mark_safe(page)\n"
PAD = "def helper_{n}_{m}(value):\n    return value + {m}\n"


def tree(units: int = 12) -> dict[str, str]:
    """Two flows across modules far apart in path order, and unrelated filler between them."""
    files = {"a/views.py": VIEW, "z/reports.py": REPORTS, "b/exporting.py": LOCAL, "y/web/render.py": RENDER}
    files |= {f"m/filler_{n}.py": "".join(PAD.format(n=n, m=m) for m in range(units)) for n in range(30)}
    return files


def plan(files: dict[str, str], chunk_tokens: int = 400):  # type: ignore[no-untyped-def]
    return plan_audit(MemorySnapshot(files), chunk_tokens=chunk_tokens)


def request_of(files: dict[str, str], path: str, chunk_tokens: int = 400) -> str:
    audit = plan(files, chunk_tokens)
    chunk = next(c for c in audit.chunks if path in c.paths)
    return audit.messages(chunk, files.get)[1]["content"]


FLOWS = (("a/views.py", "z/reports.py", "def fetch_report(", "return fetch_report(name)"),
         ("b/exporting.py", "y/web/render.py", "def page_for(", "return page_for(request.COOKIES['page'])"))


def test_a_source_and_the_sink_it_feeds_in_another_module_arrive_in_one_request() -> None:
    files = tree()
    assert len(plan(files).chunks) > 3  # the filler is spread over several chunks: a flow is not together by luck
    for source, sink, definition, _ in FLOWS:
        shown = request_of(files, source)
        assert f"### {sink}" in shown and definition in shown


def test_a_sink_travels_with_its_callers_call_sites() -> None:
    files = tree()
    for source, sink, _, call in FLOWS:
        shown = request_of(files, sink)
        assert f"### {source}" in shown and call in shown


def test_a_function_local_import_is_followed() -> None:
    audit = plan(tree())
    assert "y/web/render.py" in audit.graph.callees("b/exporting.py")


def test_the_context_stays_within_its_token_bound() -> None:
    files = tree(units=40)
    audit = plan(files)
    for chunk in audit.chunks:
        for budget in (50, 200, 1_000):
            blocks = plan_context(chunk, files.get, audit.graph, audit.definitions, budget, audit.roles)
            assert sum(len(render_block(b, files[b.path].split("\n"))) for b in blocks) <= budget * 4


def test_the_same_tree_plans_the_same_chunks_and_bytes() -> None:
    files = tree()
    first, second = plan(files), plan(dict(reversed(list(files.items()))))
    assert first.chunks == second.chunks
    assert [first.messages(c, files.get) for c in first.chunks] == [second.messages(c, files.get)
                                                                     for c in second.chunks]


def test_long_docstrings_and_comment_blocks_are_elided_and_numbers_stay_true() -> None:
    text = ('def f(x):\n    """Summary.\n\n    Long text\n    that goes on.\n    """\n    # one\n    # two\n'
            '    # three\n    return x  # kept\n\nDOC = """not a docstring\nbut data\nover lines\n"""\n')
    ranges = elided_lines("m.py", text)
    assert ranges == ((3, 9),)
    shown = numbered("m.py", text, ranges)
    assert "2     \"\"\"Summary." in shown and "3-9 (elided)" in shown and "10     return x  # kept" in shown
    assert "12 DOC = \"\"\"not a docstring" in shown and "14 over lines" in shown  # data is code: never elided
