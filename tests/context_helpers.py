"""Shared helpers for the context-engine tests: a plan from two trees, and what the model would read."""

from __future__ import annotations

from typing import Any

from reviewbot.review.config import read_options
from reviewbot.review.context.snapshot import MemorySnapshot
from reviewbot.review.diff.parse import parse_diff
from reviewbot.review.prompt.layout import Layout
from reviewbot.review.prompt.plan import Plan, build_plan
from reviewbot.review.prompt.sections import PromptInput
from tests.fakes.diffs import git_diff


def plan_for(base: dict[str, str], head: dict[str, str], previous: Layout | None = None, **kw: Any) -> Plan:
    """The prompt plan for the change base -> head, with `base` as the repository at the base commit."""
    diff = parse_diff(kw.pop("diff_text", None) or git_diff(base, head))
    snapshot = MemorySnapshot(base)
    if "options" not in kw:  # as the worker and the CLI do: .github/reviewbot.yml at the base commit
        kw["options"], kw["notes"] = read_options(snapshot)
    inp = PromptInput(title=kw.pop("title", "Change"), description=kw.pop("description", ""), diff=diff,
                      base_files={}, snapshot=snapshot, **kw)
    return build_plan(inp, previous)


def prompt_text(plan: Plan) -> str:
    """Everything sent to the model, system message included."""
    return "\n\n".join(m["content"] for m in plan.prompt.messages)


def context_text(plan: Plan) -> str:
    return next(s.text for s in plan.prompt.sections if s.name == "context files")


def diff_text(plan: Plan) -> str:
    return next(s.text for s in plan.prompt.sections if s.name == "diff")


def filler(name: str, lines: int = 300) -> str:
    """A long Python module of unrelated functions, so excerpts (not whole files) are chosen."""
    return "".join(f"def {name}_{i}(value):\n    return value + {i}\n\n\n" for i in range(lines // 4))
