"""The worker's review uses the context engine: callers in untouched files, remembered layout, coverage."""

from __future__ import annotations

from typing import Any

import httpx
from redis.asyncio import Redis

from reviewbot.settings import Settings
from reviewbot.state.prompt_stores import RedisStores, pr_layout_key
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel
from tests.helpers import deliver, payload, run_worker_until_idle

PRICING = "def price(item):\n    return item.cents\n\n\ndef tax(cents):\n    return cents // 5\n"
BASE = {
    "shop/pricing.py": PRICING,
    "shop/checkout.py": "from shop.pricing import price\n\n\ndef charge(cart):\n"
                        "    return sum(price(i) for i in cart)\n",
    "shop/refunds.py": "from shop.pricing import tax\n\n\ndef refund(cents):\n    return cents - tax(cents)\n",
    "package-lock.json": "{}\n",
    "CONTRIBUTING.md": "All money is integer cents.\n",
}


async def review(web: httpx.Client, settings: Settings, redis_url: str, pull: dict[str, Any],
                 name: str = "pull_request.opened") -> None:
    assert deliver(web, "pull_request", payload(name, pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)


async def test_the_review_prompt_holds_the_untouched_caller_and_the_summary_says_what_was_skipped(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    head = {**BASE, "shop/pricing.py": PRICING.replace("def price(item):", "def price(item, currency):"),
            "package-lock.json": '{"lockfileVersion": 3}\n'}
    pull = fake_github.add_pull(REPO, 11, base_files=BASE, head_files=head, title="Prices in any currency")
    await review(web, settings, redis_url, pull)
    [request] = fake_model.requests
    user = request.json["messages"][1]["content"]
    assert "return sum(price(i) for i in cart)" in user  # shop/checkout.py: the PR never touched it
    assert "All money is integer cents." in user  # the repository's guidance
    assert "lockfileVersion" not in user
    [posted] = fake_github.reviews[(REPO, 11)]
    assert "Coverage: 1 of 2 file(s) reviewed, 1 skipped" in posted["body"]
    assert "`package-lock.json`: lockfile" in posted["body"]
    assert "uses 'price', whose signature this pull request changes" in posted["body"]
    tarballs = [r for r in fake_github.requests if "/tarball/" in r.path]
    assert len(tarballs) == 1 and pull["base"]["sha"] in tarballs[0].path


async def test_a_re_review_keeps_the_layout_reuses_the_cached_tree_and_calibrates(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    first_head = {**BASE, "shop/pricing.py": PRICING.replace("return item.cents", "return int(item.cents)"),
                  "shop/checkout.py": BASE["shop/checkout.py"] + "\n\ndef empty(cart):\n    return not cart\n"}
    await review(web, settings, redis_url, fake_github.add_pull(REPO, 12, base_files=BASE, head_files=first_head,
                                                                title="Integer prices", body="Cents only."))
    # A small push to one of the two files: tax() gains a parameter, so its caller joins the context.
    second_head = {**first_head, "shop/pricing.py": first_head["shop/pricing.py"].replace(
        "def tax(cents):", "def tax(cents, rate):")}
    pushed = fake_github.update_head(REPO, 12, second_head)
    await review(web, settings, redis_url, pushed, "pull_request.synchronize")
    first, second = (r.json["messages"][1]["content"] for r in fake_model.requests)
    # Byte-identical up to the diff file the push changed: guidance, context, the unchanged file's diff.
    changed_at = first.index("--- shop/pricing.py")
    assert first.index("--- shop/checkout.py") < changed_at
    assert second[:changed_at] == first[:changed_at]
    # Then what the push brought: the new caller, the changed file's diff, and last the pull request's text.
    order = [second.index(s) for s in ("return cents - tax(cents)", "--- shop/pricing.py", "Title: Integer prices")]
    assert changed_at <= order[0] and order == sorted(order)
    cached = fake_model.served[1]["usage"]["prompt_tokens_details"]["cached_tokens"]
    assert cached >= (len(first[:changed_at]) // 4 // 64) * 64  # the fake caches whole 64-token blocks
    assert len([r for r in fake_github.requests if "/tarball/" in r.path]) == 1  # same base: cached tree
    client = Redis.from_url(redis_url)
    stores = RedisStores(client)
    layout = await stores.load_layout(pr_layout_key(REPO, 12))
    assert layout is not None and [b.path for b in layout.context][-1] == "shop/refunds.py"
    calibration = await stores.calibration(settings.model)
    assert calibration.samples == 2 and 3.5 < calibration.chars_per_token < 4.5  # the fake counts chars/4
    await client.aclose()


async def test_without_the_archive_the_review_falls_back_to_the_changed_files(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.inject("GET", r"/repos/.*/tarball/.*", 404, {"message": "Not Found"}, times=5)
    head = {**BASE, "shop/pricing.py": PRICING.replace("return item.cents", "return item.cents or 0")}
    await review(web, settings, redis_url, fake_github.add_pull(REPO, 13, base_files=BASE, head_files=head))
    [request] = fake_model.requests
    assert "def tax(cents):\n    return cents // 5" in request.json["messages"][1]["content"]
    assert len(fake_github.reviews[(REPO, 13)]) == 1
