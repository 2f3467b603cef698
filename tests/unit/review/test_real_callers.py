"""On real code (Django 5.1.4 → 5.2), every file that calls a function whose signature changed is in the context
or listed as left out with the reason, with and without the persistent index."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reviewbot.repos.index_store import SqliteIndex
from reviewbot.review.prompt.plan import Plan
from tests.context_helpers import plan_for

FIXTURE = Path(__file__).parents[2] / "fixtures" / "django_run_formatters"
CHANGED = "django/core/management/utils.py"


def _files(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*.py"))}


def _callers(base: dict[str, str], name: str) -> set[str]:
    """Found independently of the engine: any other file with a call `name(`."""
    return {p for p, text in base.items() if p != CHANGED and re.search(rf"\b{name}\(", text)}


@pytest.mark.parametrize("budget", [100_000, 4_000])
@pytest.mark.parametrize("indexed", [False, True])
def test_every_caller_of_a_changed_signature_is_shown_or_listed(tmp_path: Path, indexed: bool, budget: int) -> None:
    base = _files(FIXTURE / "base")
    head = {**base, **_files(FIXTURE / "head")}
    callers = _callers(base, "run_formatters")
    assert len(callers) == 4  # makemigrations, optimizemigration, squashmigrations, templates
    kw = {"index": SqliteIndex(tmp_path / "index")} if indexed else {}
    plan: Plan = plan_for(base, head, budget_tokens=budget, **kw)
    shown = {path: reason for path, reason, _ in plan.coverage.context}
    listed = dict(plan.coverage.left_out)
    for caller in callers:
        reason = shown.get(caller) or listed.get(caller, "")
        assert "uses `run_formatters`, whose signature this pull request changes" in reason, caller
    if budget == 100_000:
        assert callers <= set(shown)  # room for all of them: all are in front of the model
    else:  # a tight budget: some callers do not fit, and the report says so
        assert callers - set(shown) and all("over the prompt's token budget" in listed[c]
                                            for c in callers - set(shown))
    assert "django/core/management/commands/check.py" not in shown  # real code that does not call it
