"""Money is counted before and after it is spent: daily budgets per installation and repository, held atomically
and charged for every paid request whatever the review's outcome; one token budget per review over everything."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from reviewbot.inference.budget import BudgetBusy, BudgetSpent, DailyBudget, Limits
from reviewbot.jobs.pr_review.review_job import review_estimate
from reviewbot.model import Usage
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json
from tests.helpers import BASE_CALC, HEAD_CALC, bug_finding, deliver, payload, run_worker_until_idle
from tests.observe_helpers import served_totals

MAJOR = bug_finding(line=2, title="result starts at zero instead of the first price", severity="major")


def open_pull(github: FakeGitHub, number: int = 7, config: str = "") -> dict[str, Any]:
    files = {".github/reviewbot.yml": config} if config else {}
    return github.add_pull(REPO, number, base_files={"app/calc.py": BASE_CALC, **files},
                           head_files={"app/calc.py": HEAD_CALC, **files})


async def review(web: httpx.Client, settings: Settings, redis_url: str, pull: dict[str, Any]) -> None:
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)


async def spent(redis_url: str) -> dict[str, tuple[float, int, float, int]]:
    client = Redis.from_url(redis_url)
    try:
        budget = DailyBudget(client, Limits())
        keys = DailyBudget.scopes(INSTALLATION, REPO)
        return {name: dataclasses.astuple(await budget.spent(key)) for name, key in zip(("installation", "repo"),
                                                                                       keys, strict=True)}
    finally:
        await client.aclose()


async def test_a_failed_review_is_charged_for_every_request_it_paid(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.script_reply("not json")
    fake_model.script_reply('{"summary": "x", "findings": [{"path": 1}]}')
    await review(web, settings, redis_url, open_pull(fake_github))
    [check] = fake_github.check_runs.values()
    assert "not valid review JSON" in check["output"]["summary"]  # the review failed ...
    truth = served_totals(fake_model)
    assert truth["requests"] == 2
    tokens = int(truth["prompt"] + truth["completion"])
    for usd, counted, held_usd, held_tokens in (await spent(redis_url)).values():  # ... and both requests count
        assert counted == tokens and usd == pytest.approx(truth["cost"], abs=2e-6)
        assert (held_usd, held_tokens) == (0.0, 0)  # the review's hold was released when it ended


async def test_a_review_that_would_pass_the_daily_budget_does_not_start(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = answering(findings_json([bug_finding(severity="minor")]))
    await review(web, settings, redis_url, open_pull(fake_github, 7))
    used = (await spent(redis_url))["installation"][1]
    assert used > 0 and len(fake_model.requests) == 1
    # Room for what was spent plus a little less than a review's estimate: the next review must not start.
    tight = dataclasses.replace(settings, daily_budget_tokens=used + review_estimate(settings)[1] - 1)
    await review(web, tight, redis_url, open_pull(fake_github, 8))
    assert len(fake_model.requests) == 1 and fake_github.reviews[(REPO, 8)] == []
    stopped = next(c for c in fake_github.check_runs.values() if c["output"]["title"] == "Daily budget spent")
    assert stopped["conclusion"] == "neutral"
    assert "REVIEWBOT_DAILY_BUDGET_TOKENS" in stopped["output"]["summary"]
    assert "00:00 UTC" in stopped["output"]["summary"]


async def test_concurrent_reservations_cannot_overshoot(redis_url: str) -> None:
    clients = [Redis.from_url(redis_url) for _ in range(4)]  # as if four workers
    try:
        budgets = [DailyBudget(c, Limits(usd=10.0), Limits(tokens=1_000_000)) for c in clients]

        async def one(n: int) -> bool:
            try:
                await budgets[n % 4].reserve(INSTALLATION, REPO, f"job-{n}", usd=1.0, tokens=1_000)
            except BudgetBusy:  # nothing is spent yet: the others' holds are in the way, so it waits
                return False
            return True

        won = [n for n, ok in enumerate(await asyncio.gather(*(one(n) for n in range(40)))) if ok]
        assert len(won) == 10  # $10 of holds at $1 each, whatever the interleaving
        state = await budgets[0].spent(DailyBudget.scopes(INSTALLATION, REPO)[0])
        assert (state.usd, state.held_usd) == (0.0, 10.0)
        for n in won:  # each spends $0.90 of its hold, then ends
            await budgets[0].charge(INSTALLATION, REPO, f"job-{n}", Usage(prompt_tokens=900, cost_usd=0.9))
            await budgets[0].release(INSTALLATION, REPO, f"job-{n}")
        state = await budgets[0].spent(DailyBudget.scopes(INSTALLATION, REPO)[0])
        assert state.usd == pytest.approx(9.0) and state.held_usd == 0.0
        with pytest.raises(BudgetSpent, match=r"\$10.00; \$9.00 spent or held"):
            await budgets[1].reserve(INSTALLATION, REPO, "job-late", usd=1.5, tokens=10)
        await budgets[1].reserve(INSTALLATION, REPO, "job-small", usd=0.5, tokens=10)  # what is left still serves
    finally:
        for c in clients:
            await c.aclose()


async def test_a_crashed_reviews_hold_lapses_with_its_lease(redis_url: str) -> None:
    client = Redis.from_url(redis_url)
    try:
        # A 3 s lease: the refused reserve below comes well within it even on a loaded machine. Holds expire in whole
        # seconds (`expires < now`), so the lease has surely lapsed only lease + 1 s after the reserve.
        budget = DailyBudget(client, Limits(usd=1.0), lease_s=3)
        await budget.reserve(INSTALLATION, REPO, "killed-job", usd=1.0, tokens=1)  # and never released
        with pytest.raises(BudgetBusy):
            await budget.reserve(INSTALLATION, REPO, "next-job", usd=0.5, tokens=1)
        await asyncio.sleep(4.2)
        await budget.reserve(INSTALLATION, REPO, "next-job", usd=0.5, tokens=1)
    finally:
        await client.aclose()


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


async def test_passes_verification_and_tool_turns_share_one_review_token_budget(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    # A model that reads files whenever it may: every conversation (two passes, the verification) would take
    # its tool turns, and each used to get the whole budget for itself.
    fake_model.default = answering(findings_json([MAJOR]))
    fake_model.greedy_tool_calls = [tool_call("read_file", path="app/calc.py")]
    budget = 30_000
    roomy = dataclasses.replace(settings, review_token_budget=10_000_000, max_completion_tokens=2_000)
    await review(web, roomy, redis_url, open_pull(fake_github, 7, config="passes: 2\n"))
    free = served_totals(fake_model)
    capped = dataclasses.replace(roomy, review_token_budget=budget)
    await review(web, capped, redis_url, open_pull(fake_github, 8, config="passes: 2\n"))
    both = served_totals(fake_model)
    billed = both["prompt"] + both["completion"] - free["prompt"] - free["completion"]
    print(f"unbounded: {free['prompt'] + free['completion']:.0f} tokens in {free['requests']:.0f} requests; "
          f"budget {budget}: {billed:.0f} tokens in {both['requests'] - free['requests']:.0f} requests")
    assert free["prompt"] + free["completion"] > budget  # what the same review costs without the shared cap
    assert billed <= budget
    assert len(fake_github.reviews[(REPO, 8)]) == 1  # the review still lands, its tool turns cut short
