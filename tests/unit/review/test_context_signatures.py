"""Callers of a changed signature reach the prompt or the left-out list: changes past a long header's cut or in
one overload count, and a caller past the cap is listed with its calling line."""

from __future__ import annotations

from reviewbot.review.context.calls import first_call
from reviewbot.review.context.selection import MAX_FILES_PER_NAME
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


def test_callers_past_the_cap_are_listed_with_their_calling_line() -> None:
    callers = {f"app/use_{i:02}.py": f"from app.calc import total\n\n\ndef f{i}(x):\n    return total(x)  # {i}\n"
               for i in range(MAX_FILES_PER_NAME + 5)}
    base = {"app/calc.py": "def total(items):\n    return sum(items)\n", **callers}
    head = {**base, "app/calc.py": "def total(items, tax):\n    return sum(items) * tax\n"}
    plan = plan_for(base, head)
    shown = {p for p, _, _ in plan.coverage.context}
    listed = dict(plan.coverage.left_out)
    assert set(callers) <= shown | set(listed)  # every caller reaches the prompt or the list
    capped = [p for p in callers if p not in shown]
    assert capped
    for path in capped:
        number = int(path[-5:-3])
        assert listed[path].endswith(f"likeliest callers are included); line 5: return total(x)  # {number}")


def test_first_call_prefers_a_call_to_an_earlier_mention() -> None:
    text = "from app import total\n\nx = subtotal(1)\ny = total (2)\n"
    assert first_call(text, "total") == (4, "y = total (2)")
    assert first_call("import total\n", "total") == (1, "import total")
    assert first_call("subtotal(1)\n", "total") is None
