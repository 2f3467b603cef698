"""Context selection: what a careful reviewer would open lands in the prompt, with the reason why."""

from __future__ import annotations

import pytest

from reviewbot.review.context.symbols import parse
from tests.context_helpers import context_text, filler, plan_for, prompt_text

CALC = "def total(items):\n    return sum(i.price for i in items)\n"
REPORT = ("from app.calc import total\n\n\ndef monthly_report(orders):\n    amount = total(orders)\n"
          "    return f'{amount:.2f}'\n")


def test_a_changed_signature_brings_its_only_caller_from_an_untouched_file() -> None:
    base = {"app/calc.py": CALC, "app/report.py": REPORT, "app/unrelated.py": "def other():\n    return 1\n"}
    head = {**base, "app/calc.py": "def total(items, tax_rate):\n    return sum(i.price for i in items) * tax_rate\n"}
    plan = plan_for(base, head)
    context = context_text(plan)
    assert "amount = total(orders)" in context  # the caller that now passes too few arguments
    assert "app/unrelated.py" not in prompt_text(plan)
    reasons = {path: reason for path, reason, _ in plan.coverage.context}
    assert reasons["app/report.py"] == "uses `total`, whose signature this pull request changes"


def test_a_new_call_to_an_unchanged_function_brings_its_definition() -> None:
    helpers = filler("helper") + "def escape_html(text):\n    return text.replace('<', '&lt;')\n" + filler("more")
    base = {"app/view.py": "def render(name):\n    return name\n", "app/helpers.py": helpers}
    head = {**base, "app/view.py": "from app.helpers import escape_html\n\n\ndef render(name):\n"
                                   "    return '<b>' + escape_html(name) + '</b>'\n"}
    plan = plan_for(base, head)
    context = context_text(plan)
    assert "return text.replace('<', '&lt;')" in context  # the body the new code relies on
    assert "def helper_40(value)" not in context or "excerpt" in context  # a big file is excerpted, not dumped
    assert "### app/helpers.py (excerpt: lines" in context
    reasons = {path: reason for path, reason, _ in plan.coverage.context}
    assert reasons["app/helpers.py"] == "defines `escape_html`, which the new code calls"


def test_a_renamed_constant_brings_its_remaining_references() -> None:
    base = {"app/limits.py": "MAX_RETRIES = 3\n", "app/client.py":
            "from app.limits import MAX_RETRIES\n\n\ndef fetch(url):\n    for _ in range(MAX_RETRIES):\n"
            "        pass\n", "app/other.py": "def nothing():\n    return None\n"}
    head = {**base, "app/limits.py": "RETRY_LIMIT = 3\n"}
    plan = plan_for(base, head)
    assert "for _ in range(MAX_RETRIES):" in context_text(plan)
    reasons = {path: reason for path, reason, _ in plan.coverage.context}
    assert "MAX_RETRIES" in reasons["app/client.py"] and "removed or renamed" in reasons["app/client.py"]
    assert "app/other.py" not in reasons


def test_tests_of_a_changed_module_types_and_constants_come_along() -> None:
    base = {
        "shop/cart.py": "def add(cart, item):\n    cart.append(item)\n",
        "shop/models.py": "class Item:\n    price: int\n\n\nDEFAULT_CURRENCY = 'EUR'\n",
        "tests/test_cart.py": "from shop.cart import add\n\n\ndef test_add():\n    c = []\n    add(c, 1)\n",
    }
    head = {**base, "shop/cart.py": "from shop.models import DEFAULT_CURRENCY, Item\n\n\n"
                                    "def add(cart, item):\n    assert isinstance(item, Item)\n"
                                    "    cart.append((item, DEFAULT_CURRENCY))\n"}
    plan = plan_for(base, head)
    reasons = {path: reason for path, reason, _ in plan.coverage.context}
    assert reasons["tests/test_cart.py"] == "tests of shop/cart.py"
    assert reasons["shop/models.py"].startswith("defines `")
    assert "class Item:" in context_text(plan) and "DEFAULT_CURRENCY = 'EUR'" in context_text(plan)


def test_repository_guidance_and_config_instructions_lead_the_user_message() -> None:
    base = {"AGENTS.md": "Money is always integer cents.\n", "app/calc.py": CALC,
            ".github/reviewbot.yml": "instructions: Flag any float arithmetic on money.\n"}
    head = {**base, "app/calc.py": CALC + "\n\ndef half(x):\n    return x / 2\n"}
    plan = plan_for(base, head)
    guidance = plan.prompt.sections[1]
    assert guidance.name == "guidance" and guidance.items == (".github/reviewbot.yml", "AGENTS.md")
    user = plan.prompt.messages[1]["content"]
    assert user.startswith("## Repository guidance") and "Money is always integer cents." in user
    assert "Flag any float arithmetic on money." in user


def test_a_big_changed_file_is_shown_as_outline_plus_the_touched_function() -> None:
    big = filler("a") + "def target(x):\n    return x * 2\n\n\n" + filler("b")
    base = {"app/big.py": big}
    head = {"app/big.py": big.replace("return x * 2", "return x * 3")}
    plan = plan_for(base, head)
    context = context_text(plan)
    assert "def target(x):" in context and "Outline (line: definition):" in context
    assert "def a_3(value)" in context  # the outline names what else the file holds...
    assert "return value + 3\n" not in context  # ...without its bodies


@pytest.mark.parametrize(("path", "source", "expected"), [
    ("m.go", "package m\nconst Max = 3\ntype T struct{}\nfunc (t *T) Run(n int) {}\nfunc Helper() {}\n",
     {("Max", "constant"), ("T", "type"), ("Run", "method"), ("Helper", "function")}),
    ("m.ts", "export const LIMIT = 3;\ninterface Shape { area(): number }\nclass Sq { area() { return 1; } }\n"
     "export function make(): Sq { return new Sq(); }\n",
     {("LIMIT", "constant"), ("Shape", "type"), ("Sq", "class"), ("area", "method"), ("make", "function")}),
    ("m.js", "function run(a) { return a; }\nclass K { go() {} }\n",
     {("run", "function"), ("K", "class"), ("go", "method")}),
    ("M.java", "class M { static final int MAX = 1; void run(int a) {} interface Cb {} }\n",
     {("M", "class"), ("MAX", "constant"), ("run", "method"), ("Cb", "type")}),
    ("m.rs", "const MAX: u8 = 1;\nstruct P;\ntrait Tr { fn t(&self); }\nfn run() {}\n",
     {("MAX", "constant"), ("P", "type"), ("Tr", "type"), ("t", "method"), ("run", "function")}),
    ("m.rb", "LIMIT = 2\nmodule Shop\n  class Cart\n    def add(x)\n    end\n  end\nend\n",
     {("LIMIT", "constant"), ("Shop", "module"), ("Cart", "class"), ("add", "method")}),
    ("m.c", "#define MAX 3\nstruct point { int x; };\nint area(int w) { return w; }\n",
     {("MAX", "constant"), ("point", "type"), ("area", "function")}),
    ("m.cpp", "namespace geo { class Shape { public: int area(); }; }\nint geo_total() { return 0; }\n",
     {("geo", "module"), ("Shape", "class"), ("area", "method"), ("geo_total", "function")}),
    ("m.kt", "fun run() {}\nclass Box\n", {("Box", "class")}),  # no grammar here: the plain-text fallback
])
def test_definitions_are_found_in_every_supported_language(path: str, source: str,
                                                           expected: set[tuple[str, str]]) -> None:
    assert {(d.name, d.kind) for d in parse(path, source).definitions} >= expected


def test_locals_are_not_definitions_and_methods_know_their_class() -> None:
    parsed = parse("a.py", "class Cart:\n    def add(self, item):\n        count = 1\n        return count\n")
    assert [(d.name, d.kind, d.parent) for d in parsed.definitions] == [("Cart", "class", None),
                                                                         ("add", "method", "Cart")]
