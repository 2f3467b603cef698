"""Signature changes a reviewer would call signature changes: past a long header's cut, or in one overload."""

from __future__ import annotations

from reviewbot.review.context.symbols import MAX_SIGNATURE_CHARS, parse
from reviewbot.review.prompt.plan import Plan
from tests.context_helpers import context_text, plan_for

PARAMS = ", ".join(f"option_{i}: int | None = None" for i in range(20))  # a header longer than the cut
DUMP = f"class Model:\n    def dump(self, *, {PARAMS}) -> dict:\n        return {{}}\n"
CALLER = "from app.model import Model\n\n\ndef export(m: Model) -> dict:\n    return m.dump(option_0=1)\n"


def _reason(plan: Plan, path: str) -> str:
    reasons = {p: r for p, r, _ in plan.coverage.context}
    return reasons.get(path, "")


def test_a_keyword_added_at_the_end_of_a_long_signature_brings_the_callers() -> None:
    base = {"app/model.py": DUMP, "app/export.py": CALLER}
    head = {**base, "app/model.py": DUMP.replace(") -> dict:", ", polymorphic: bool = False) -> dict:")}
    plan = plan_for(base, head)
    assert "return m.dump(option_0=1)" in context_text(plan)
    assert _reason(plan, "app/export.py") == "uses `dump`, whose signature this pull request changes"


def test_a_long_signatures_body_change_is_still_a_body_change() -> None:
    base = {"app/model.py": DUMP, "app/export.py": CALLER}
    head = {**base, "app/model.py": DUMP.replace("return {}", "return {'x': 1}")}
    assert "signature" not in _reason(plan_for(base, head), "app/export.py")


def test_long_headers_differing_only_past_the_cut_have_different_signatures() -> None:
    before = parse("m.py", f"def f({PARAMS}):\n    pass\n").definitions[0].signature
    after = parse("m.py", f"def f({PARAMS}, extra=1):\n    pass\n").definitions[0].signature
    assert before != after
    assert len(before) <= MAX_SIGNATURE_CHARS and before.startswith("def f(option_0: int | None = None")
    assert parse("m.py", "def g(a, b=2):\n    pass\n").definitions[0].signature == "def g(a, b=2):"


OVERLOADS = ("from typing import overload\n\n\n@overload\ndef load(x: int) -> int: ...\n\n\n"
             "@overload\ndef load(x: str) -> str: ...\n\n\ndef load(x):\n    return x\n")


def test_a_change_to_one_overload_is_a_signature_change() -> None:
    base = {"app/io.py": OVERLOADS, "app/use.py": "from app.io import load\n\n\ndef run():\n    return load(1)\n"}
    head = {**base, "app/io.py": OVERLOADS.replace("def load(x: int) -> int", "def load(x: int, y: int) -> int")}
    plan = plan_for(base, head)
    assert "return load(1)" in context_text(plan)
    assert _reason(plan, "app/use.py") == "uses `load`, whose signature this pull request changes"
