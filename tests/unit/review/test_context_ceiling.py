"""Context as a ceiling: weakly related files stay out (and are listed), callers of a changed signature stay in."""

from __future__ import annotations

from reviewbot.review.context.options import ContextOptions
from reviewbot.review.context.selection import Pick
from reviewbot.review.prompt.coverage import render_coverage
from reviewbot.review.prompt.relevance import left_out_reason, score
from tests.context_helpers import plan_for

LIB = "def total(items):\n    return sum(items)\n\n\ndef label(name):\n    return name.title()\n"


def users(count: int) -> dict[str, str]:
    return {f"app/user_{i}.py": f"from app.lib import total\n\n\ndef run_{i}(rows):\n    return total(rows)\n"
            for i in range(count)}


def test_the_score_rule_keeps_strong_relations_and_names_why_the_rest_stays_out() -> None:
    caller = Pick("a.py", 100.0, "uses `f`, whose signature this pull request changes")
    assert left_out_reason(score(caller), 6_000) is None  # a must-have, however long
    callee = Pick("b.py", 80.0, "defines `g`, which the new code calls")
    assert left_out_reason(score(callee), 900) is None
    assert "too long for its relevance" in str(left_out_reason(score(callee), 5_000))
    body_caller = Pick("c.py", 45.0, "uses `h`, whose body this pull request changes")
    assert left_out_reason(score(body_caller), 100) == "weakly related (relevance 45 < 60)"
    # The base version of a changed document or metadata file adds nothing the diff's own lines do not show.
    assert score(Pick("docs/guide.txt", 95.0, "changed by this pull request (base version)")) < 60
    assert score(Pick("app/x.py", 95.0, "changed by this pull request (base version)")) == 95
    assert score(Pick("tests/test_x.py", 55.0, "tests of app/x.py")) == 80  # tests of changed code rank high


def test_a_body_change_used_everywhere_costs_little_and_lists_the_files_left_out() -> None:
    base = {"app/lib.py": LIB, **users(12)}
    small = plan_for(base, {**base, "app/lib.py": LIB.replace("return sum(items)", "return sum(items, 0)")})
    assert [p for p, _, _ in small.coverage.context] == ["app/lib.py"]  # its base version only
    assert len(small.coverage.left_out) == 12
    assert all("whose body this pull request changes: weakly related" in why for _, why in small.coverage.left_out)
    # A signature change makes the same twelve files callers the model must see: a bigger change costs more.
    big = plan_for(base, {**base, "app/lib.py": LIB.replace("def total(items)", "def total(items, start)")})
    assert {p for p, _, _ in big.coverage.context} == {"app/lib.py", *users(12)}
    assert small.prompt.tokens < big.prompt.tokens < 100_000 // 10


def test_every_caller_of_a_changed_signature_is_in_the_context_or_listed_with_the_reason() -> None:
    padding = ("# " + "x" * 70 + "\n") * 70  # just under the size shown whole: about 1.3k tokens a file
    long_users = {p: t + padding for p, t in users(10).items()}
    base = {"app/lib.py": LIB, **long_users}
    head = {**base, "app/lib.py": LIB.replace("def total(items)", "def total(items, start)")}
    plan = plan_for(base, head, options=ContextOptions(budget_tokens=8_000))
    shown = {p for p, _, _ in plan.coverage.context}
    left = dict(plan.coverage.left_out)
    assert set(long_users) <= shown | set(left)
    assert left and all("over the prompt's token budget" in left[p] for p in set(long_users) - shown)
    assert "Related but not included" in render_coverage(plan.coverage)


def test_a_caller_whose_uses_the_diff_already_shows_is_not_repeated() -> None:
    base = {"app/lib.py": LIB, "app/report.py": "from app.lib import total\n\n\ndef report(rows):\n"
                                                "    return total(rows)\n"}
    head = {"app/lib.py": LIB.replace("def total(items)", "def total(items, start)"),
            "app/report.py": base["app/report.py"].replace("total(rows)", "total(rows, 0)")}
    plan = plan_for(base, head)
    left = dict(plan.coverage.left_out)
    assert left["app/report.py"].endswith("the diff shows where")
    assert all("uses `total`" not in why for p, why, _ in plan.coverage.context if p == "app/report.py")
