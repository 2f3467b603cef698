"""An incremental re-audit's selection: changed files, their callers and callees, and what carries forward."""

from __future__ import annotations

from reviewbot.audit.callgraph import build_graph
from reviewbot.audit.incremental import MAX_RELATED, carry_forward, select_incremental
from reviewbot.review.findings.schema import Finding

GRAPH = build_graph({"db.py": ["run_sql"], "queries.py": ["find_orders"], "views.py": ["order_list"],
                     "old.py": ["legacy_call"]},
                    {"views.py": {"find_orders"}, "queries.py": {"run_sql"}, "db.py": set(),
                     "admin.py": {"legacy_call"}, "other.py": set()})
PREVIOUS = {"db.py": "1", "queries.py": "2", "views.py": "3", "other.py": "4", "admin.py": "5", "old.py": "6"}


def test_a_changed_file_brings_its_callers_and_callees_the_rest_carries_forward() -> None:
    current = {**PREVIOUS, "queries.py": "2b"}
    del current["old.py"]
    selection = select_incremental(PREVIOUS, current, GRAPH)
    assert selection.changed == ("queries.py",) and selection.removed == ("old.py",)
    assert selection.related == ("admin.py", "db.py", "views.py")  # callee, caller, and the removed file's caller
    assert selection.audit == ("admin.py", "db.py", "queries.py", "views.py")
    assert selection.carried == ("other.py",) and not selection.full


def test_nothing_changed_audits_nothing_and_no_previous_state_audits_everything() -> None:
    assert select_incremental(PREVIOUS, PREVIOUS, GRAPH).audit == ()
    first = select_incremental({}, PREVIOUS, GRAPH)
    assert first.audit == tuple(sorted(PREVIOUS)) and first.full


def test_findings_of_untouched_files_carry_forward_the_others_are_replaced() -> None:
    def at(path: str) -> Finding:
        return Finding(path=path, line=1, severity="major", category="security", title="t", body="b",
                       confidence=0.9)

    selection = select_incremental(PREVIOUS, {**PREVIOUS, "db.py": "1b"}, GRAPH)
    assert [f.path for f in carry_forward([at("other.py"), at("db.py"), at("queries.py"), at("old.py")],
                                          selection)] == ["other.py", "old.py"]


def test_a_much_used_file_brings_only_its_strongest_links_to_be_audited_again() -> None:
    users = {f"user_{i:02}.py": {"popular_helper"} | ({"helpers"} if i < 3 else set()) for i in range(12)}
    graph = build_graph({"helpers.py": ["popular_helper"]}, {**users, "helpers.py": set()})
    previous = {p: "1" for p in [*users, "helpers.py"]}
    selection = select_incremental(previous, {**previous, "helpers.py": "2"}, graph)
    assert len(selection.related) == MAX_RELATED
    assert {"user_00.py", "user_01.py", "user_02.py"} <= set(selection.related)  # they import it by name


def test_with_sizes_related_files_stay_within_half_the_changed_files_size() -> None:
    graph = build_graph({"core.py": ["core_call"]}, {"core.py": set(), "big.py": {"core_call", "core"},
                                                       "small.py": {"core_call"}, "tiny.py": {"core_call"}})
    previous = {"core.py": "1", "big.py": "2", "small.py": "3", "tiny.py": "4"}
    sizes = {"core.py": 1_000, "big.py": 5_000, "small.py": 300, "tiny.py": 100}
    selection = select_incremental(previous, {**previous, "core.py": "1b"}, graph, sizes=sizes)
    assert selection.related == ("small.py", "tiny.py")  # big.py is the strongest link, but twice too big
    assert "big.py" in selection.carried
