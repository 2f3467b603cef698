"""`reviewbot review` with the context engine: the plan names files and reasons, and remembers the branch."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.fakes.model import FakeModel, findings_json
from tests.integration.test_cli_review import git, model_env, new_repo, run_cli

PRICING = "def price(item):\n    return item.cents\n"
CHECKOUT = "from shop.pricing import price\n\n\ndef charge(cart):\n    return sum(price(i) for i in cart)\n"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = new_repo(tmp_path / "shop")
    (root / "shop").mkdir()
    (root / "shop" / "pricing.py").write_text(PRICING)
    (root / "shop" / "checkout.py").write_text(CHECKOUT)
    (root / "AGENTS.md").write_text("Prices are integer cents.\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "feature")
    (root / "shop" / "pricing.py").write_text("def price(item, currency):\n    return item.cents\n")
    git(root, "commit", "-qam", "Prices in a currency")
    return root


def test_dry_run_names_each_context_file_with_its_reason(shop: Path, tmp_path: Path) -> None:
    env = {"REVIEWBOT_DATA_DIR": str(tmp_path / "data")}
    done = run_cli(["review", "--repo", str(shop), "--base", "main", "--dry-run", "--format", "json"], env, shop)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    context = {c["path"]: c["reason"] for c in plan["coverage"]["context"]}
    assert context["shop/checkout.py"] == "uses `price`, whose signature this pull request changes"
    assert plan["sections"][1]["items"] == ["AGENTS.md"] and plan["previous_review"] is False
    text = run_cli(["review", "--repo", str(shop), "--base", "main", "--dry-run"], env, shop).stdout
    assert "shop/checkout.py (" in text and "whose signature this pull request changes" in text
    assert "expected cache reuse: none (no earlier review of feature)" in text


def test_after_a_review_the_plan_expects_the_cache_and_the_next_review_keeps_the_order(
        shop: Path, tmp_path: Path, fake_model: FakeModel) -> None:
    env = {**model_env(fake_model), "REVIEWBOT_DATA_DIR": str(tmp_path / "data")}
    fake_model.script_reply(findings_json([]))
    args = ["review", "--repo", str(shop), "--base", "main", "--format", "json"]
    assert run_cli(args, env, shop).returncode == 0
    (shop / "shop" / "pricing.py").write_text("def price(item, currency):\n    return item.cents\n\n\n"
                                              "def discount(cents):\n    return cents\n")
    git(shop, "commit", "-qam", "Discounts")
    plan = run_cli([*args[:-2], "--dry-run"], env, shop).stdout
    match = re.search(r"expected cache reuse vs the last review of feature: ([\d,]+) of ([\d,]+) tokens", plan)
    assert match, plan
    reused, total = (int(g.replace(",", "")) for g in match.groups())
    assert reused / total > 0.7
    assert "estimated cost: $" in plan and f"with {match.group(1)} cached tokens" in plan
    fake_model.script_reply(findings_json([]))
    assert run_cli(args, env, shop).returncode == 0
    first, second = (r.json["messages"][1]["content"] for r in fake_model.requests)
    diff_end = first.index("--- shop/pricing.py")  # the only diff file, changed by the push
    assert second[:diff_end] == first[:diff_end]
    # The branch's title is its first commit's subject; the commit list, oldest first, follows the diff.
    assert "Title: Prices in a currency\n" in first and "Title: Prices in a currency\n" in second
    assert second.index("--- shop/pricing.py") < second.index("Prices in a currency\n\n\nDiscounts")
    assert len(list((tmp_path / "data" / "layouts").glob("*.json"))) == 1
