"""The audit's plan on small synthetic repositories: call graph, chunks cut along it, overview and shared prefix."""

from __future__ import annotations

import json
from pathlib import Path

from reviewbot.audit.callgraph import CallGraph, build_graph
from reviewbot.audit.chunkcontext import CONTEXT_TOKENS
from reviewbot.audit.chunkprompt import render_chunk
from reviewbot.audit.chunks import Chunk, plan_chunks
from reviewbot.audit.clusters import graph_chunks
from reviewbot.audit.contextblock import Block
from reviewbot.audit.planner import plan_audit
from reviewbot.audit.stored import stored_definitions
from reviewbot.repos.index_store import SqliteIndex
from reviewbot.review.context.snapshot import MemorySnapshot
from reviewbot.settings.catalogue import Price

VIEW = ("from shop.store.queries import find_orders\n\n\ndef order_list(request):\n"
        "    return find_orders(request.GET['customer'])\n")
QUERIES = ("def find_orders(customer):\n    sql = f\"SELECT * FROM orders WHERE customer = '{customer}'\"\n"
           "    return run_sql(sql)\n")
DB = "def run_sql(sql):\n    return connection.execute(sql)\n"
FILLER = "def helper_{n}(value):\n    return value * {n}\n" + "# padding line to give the file some weight\n" * 10


def repo() -> dict[str, str]:
    files = {"app/views.py": VIEW, "shop/store/queries.py": QUERIES, "zdb/engine.py": DB,
             "app/auth/login.py": "def check_password(user, given):\n    return user.password == given\n",
             "pyproject.toml": "[project]\nname = 'shop'\n", "README.md": "# shop\n"}
    files |= {f"lib/util_{n}.py": FILLER.format(n=n) for n in range(6)}
    return files


def test_the_graph_links_a_caller_to_the_file_defining_what_it_calls() -> None:
    graph = build_graph({"a.py": ["find_orders"], "b.py": ["render_page"], "c.py": ["render_page"]},
                        {"x.py": {"find_orders", "print"}, "a.py": {"find_orders"}, "b.py": {"render_page"}})
    assert graph.uses["x.py"] == {"a.py": ("find_orders",)}
    assert graph.callers["a.py"] == frozenset({"x.py"}) and graph.neighbours("x.py") == frozenset({"a.py"})
    assert CallGraph.from_json(graph.as_json()) == graph


def test_names_every_file_uses_or_many_files_define_make_no_edge() -> None:
    users = {f"u{i}.py": {"everywhere"} for i in range(50)}
    defined = {"lib.py": ["everywhere"], **{f"d{i}.py": ["save"] for i in range(5)}}
    graph = build_graph(defined, {**users, "v.py": {"save"}})
    assert graph.uses == {}


def test_a_module_travels_with_what_it_calls_not_with_its_path_neighbours() -> None:
    files = repo()
    sizes = {p: len(t) for p, t in files.items() if p.endswith(".py")}
    plan = plan_audit(MemorySnapshot(files), chunk_tokens=200)
    by_path = {p: c.index for c in plan.chunks for p in c.paths}
    assert by_path["app/views.py"] == by_path["shop/store/queries.py"] == by_path["zdb/engine.py"]
    path_order = {p: c.index for c in plan_chunks(sizes, 200) for p in c.paths}
    assert path_order["app/views.py"] != path_order["zdb/engine.py"]  # what the path order used to do
    assert sorted(p for c in plan.chunks for p in c.paths) == sorted(plan.files)
    assert all(c.tokens <= 200 or len(c.paths) == 1 for c in plan.chunks)


def test_groups_never_pass_the_budget_and_leftovers_join_their_path_neighbours() -> None:
    graph = build_graph({"b.py": ["shared_name"]}, {"a.py": {"shared_name"}, "b.py": set(), "c.py": set()})
    chunks = graph_chunks({"a.py": 400, "b.py": 400, "c.py": 400}, graph, budget_tokens=200)
    assert chunks == [Chunk(0, ("a.py", "b.py"), 200), Chunk(1, ("c.py",), 100)]


def test_scattered_files_fill_as_few_chunks_as_fit_them() -> None:
    # An incremental audit's handful of unrelated files: in path order they would need three chunks.
    sizes = {"a.py": 120, "b.py": 160, "c.py": 280, "d.py": 240}  # 30, 40, 70 and 60 tokens
    assert graph_chunks(sizes, CallGraph(), budget_tokens=100) == [Chunk(0, ("a.py", "c.py"), 100),
                                                                   Chunk(1, ("b.py", "d.py"), 100)]


def test_every_chunk_starts_with_the_same_bytes_and_the_overview_names_where_input_enters() -> None:
    files = repo()
    plan = plan_audit(MemorySnapshot(files), chunk_tokens=120)
    again = plan_audit(MemorySnapshot(dict(reversed(list(files.items())))), chunk_tokens=120)
    assert again.overview == plan.overview and again.chunks == plan.chunks
    read = MemorySnapshot(files).read
    messages = [plan.messages(c, read) for c in plan.chunks]
    assert len(messages) >= 3
    assert {m[0]["content"] for m in messages} == {plan.prefix.system}
    assert all(m[1]["content"].startswith(plan.prefix.head) for m in messages)
    overview = plan.overview
    assert "- `app/views.py`\n  - 4: def order_list(request):" in overview.split("### Entry points")[1].split("###")[0]
    assert "`app/auth/login.py`" in overview.split("### Authentication")[1].split("###")[0]
    assert "`shop/store/queries.py`" in overview.split("### Data access")[1].split("###")[0]
    assert "`pyproject.toml`" in overview.split("### Manifests")[1]
    assert "Security review" in plan.prefix.head  # the checklist travels in the prefix


def test_a_chunk_shows_its_files_numbered_and_the_callers_it_does_not_hold() -> None:
    files = repo()
    plan = plan_audit(MemorySnapshot(files), chunk_tokens=40)
    read = MemorySnapshot(files).read
    home = next(c for c in plan.chunks if "shop/store/queries.py" in c.paths)
    assert "app/views.py" not in home.paths  # too small a budget to hold both
    text = plan.messages(home, read)[1]["content"]
    own = text.split("## How this part connects")[0]
    assert "### shop/store/queries.py\n```\n1 def find_orders(customer):\n2     sql = f\"SELECT" in own
    context = text.split("## How this part connects")[1]
    assert "### app/views.py" in context and "calls `find_orders` of this part" in context


def test_a_context_planned_once_renders_to_the_same_bytes_wherever_the_request_is_built() -> None:
    files = repo()
    plan = plan_audit(MemorySnapshot(files), chunk_tokens=40)
    read = MemorySnapshot(files).read
    for chunk in plan.chunks:  # as a service audit keeps it: JSON in the record, rendered by the chunk's job
        kept = json.loads(json.dumps([b.as_json() for b in plan.context(chunk, read)]))
        elided = json.loads(json.dumps({p: [list(r) for r in rs] for p, rs in plan.chunk_elided(chunk).items()}))
        rendered = render_chunk(plan.prefix, chunk, len(plan.chunks), read, [Block.from_json(b) for b in kept],
                                {p: tuple((a, b) for a, b in rs) for p, rs in elided.items()})
        assert rendered == plan.messages(chunk, read)
    assert any(b[1] is not None for c in plan.chunks for b in (x.as_json() for x in plan.context(c, read)))


def test_the_estimate_counts_the_prefix_as_cached_after_the_first_chunk() -> None:
    plan = plan_audit(MemorySnapshot(repo()), chunk_tokens=120)
    estimate = plan.estimate(Price(input=0.95, cached_input=0.16, output=4.0))
    assert estimate.cached_tokens == plan.prefix_tokens * (len(plan.chunks) - 1)
    assert 0 < estimate.cost_usd < 1 and estimate.prompt_tokens > estimate.cached_tokens


def test_definitions_come_from_the_context_index_once_a_review_or_audit_parsed_the_same_content(
        tmp_path: Path) -> None:
    files = repo()
    snapshot = MemorySnapshot(files)
    store = SqliteIndex(tmp_path)
    store.add_names([(blob, set()) for blob in snapshot.blob_ids().values()])  # what a review's indexing does
    first = plan_audit(snapshot, definitions=stored_definitions(store, snapshot.blob_ids()))
    # The same blob ids, another text: what the second plan knows of queries.py can only come from the index.
    renamed = MemorySnapshot({**files, "shop/store/queries.py": QUERIES.replace("find_orders", "other_name")})
    again = plan_audit(renamed, definitions=stored_definitions(store, snapshot.blob_ids()))
    assert again.definitions == first.definitions
    assert again.definitions["shop/store/queries.py"][0].name == "find_orders"


def test_a_one_file_repository_is_not_estimated_a_full_context_allowance() -> None:
    plan = plan_audit(MemorySnapshot({"app.py": "def main():\n    return 1\n"}))
    estimate = plan.estimate(Price(input=0.95, cached_input=0.16, output=4.0))
    # Nothing outside the chunk to show as context: the prompt is the prefix and the code, not 28k tokens more.
    assert estimate.prompt_tokens < plan.prefix_tokens + 100
    (chunk,) = plan.chunks
    assert plan.chunk_estimate(chunk, None, first=True).prompt_tokens == estimate.prompt_tokens


def test_the_context_allowance_is_bounded_by_the_code_outside_the_chunk() -> None:
    plan = plan_audit(MemorySnapshot(repo()), chunk_tokens=120)
    outside = {c.index: sum(s for p, s in plan.sizes.items() if p not in c.paths) // 4 for c in plan.chunks}
    assert all(plan.context_allowance(c) == min(CONTEXT_TOKENS, outside[c.index]) for c in plan.chunks if c.paths)
