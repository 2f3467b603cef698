"""The usage ledger through a real worker: one record per review, however it ended, with what it spent."""

from __future__ import annotations

import dataclasses
import time

import httpx
import pytest
from redis.asyncio import Redis

from reviewbot.observe.ledger import Entry, Ledger
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import HEAD_CALC, bug_finding, deliver, eventually, open_pull, payload, run_worker_until_idle
from tests.observe_helpers import ledger_entries, served_totals

CAPACITY = {"result": None, "success": False, "errors": [{"code": 3040, "message": "Capacity temporarily exceeded"}]}


async def review(web: httpx.Client, settings: Settings, redis_url: str, pull: dict[str, object],
                 delivery: str | None = None) -> None:
    assert deliver(web, "pull_request", payload("pull_request.opened", pull), delivery=delivery).status_code == 202
    await run_worker_until_idle(settings, redis_url)


async def test_a_posted_review_is_one_record_with_its_files_findings_tokens_and_cost(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull = open_pull(fake_github)
    fake_model.script_reply(findings_json([bug_finding(), bug_finding(line=2, severity="nit", title="Name")]))
    started = time.time()
    await review(web, settings, redis_url, pull, delivery="delivery-42")
    [entry] = await ledger_entries(redis_url)
    truth = served_totals(fake_model)
    assert (entry.repo, entry.pr, entry.sha, entry.trigger) == (REPO, 7, pull["head"]["sha"], "opened")
    assert (entry.outcome, entry.reason, entry.installation) == ("reviewed", "", INSTALLATION)
    assert (entry.files_reviewed, entry.files_skipped, entry.comments) == (1, 0, 2)
    assert (entry.critical, entry.major, entry.minor, entry.nit) == (0, 1, 0, 1)
    assert (entry.prompt_tokens, entry.cached_tokens, entry.completion_tokens) == \
        (truth["prompt"], truth["cached"], truth["completion"])
    assert entry.cost_usd == pytest.approx(truth["cost"], abs=1e-6) and entry.cost_usd > 0  # to the micro-dollar
    # The review and the verification of its major finding: both paid, both in the one record.
    assert (entry.requests, entry.async_requests, entry.model) == (2, 0, "@cf/moonshotai/kimi-k2.6")
    assert entry.requests == truth["requests"]
    assert entry.delivery == "delivery-42" and entry.job_id.endswith(f"{REPO}#7@{pull['head']['sha']}")
    assert 0 < entry.duration_s < time.time() - started and entry.at >= started - 1


async def test_a_failed_review_is_recorded_with_its_reason_and_what_it_spent(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.script_reply("not json")
    fake_model.script_reply('{"summary": "x", "findings": [{"path": 1}]}')
    await review(web, settings, redis_url, open_pull(fake_github))
    [entry] = await ledger_entries(redis_url)
    assert entry.outcome == "failed" and "not valid review JSON" in entry.reason
    assert entry.requests == 2 and entry.prompt_tokens == served_totals(fake_model)["prompt"] > 0
    assert entry.cost_usd == pytest.approx(served_totals(fake_model)["cost"])


async def test_a_superseded_review_is_recorded_and_cost_nothing(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    old = open_pull(fake_github)
    fake_github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC + "# newer\n"})
    await review(web, settings, redis_url, old)
    [entry] = await ledger_entries(redis_url)
    assert (entry.outcome, entry.sha, entry.prompt_tokens, entry.cost_usd) == ("superseded", old["head"]["sha"], 0, 0)


async def test_a_crash_is_recorded_once_as_an_error_with_the_exception(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub) -> None:
    fake_github.inject("GET", r"/repos/acme/widgets/pulls/7", 200, {"unexpected": True})
    await review(web, settings, redis_url, open_pull(fake_github))
    [entry] = await ledger_entries(redis_url)
    assert entry.outcome == "error" and entry.reason.startswith("KeyError")


async def test_a_review_cut_off_at_its_time_limit_is_recorded_as_failed_with_the_reason(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    # The limit leaves the review seconds to reach the model on a loaded machine (at 2 s it could time out before
    # asking, and the model would never serve the answer this test waits for); the answer comes after the limit.
    fake_model.script_delay(6.5)
    fake_model.script_reply(findings_json([]))
    await review(web, dataclasses.replace(settings, job_timeout=6.0), redis_url, open_pull(fake_github))
    [entry] = await ledger_entries(redis_url)
    # The review stops itself just before arq's job timeout, so its check run and its record say why.
    assert entry.outcome == "failed" and entry.reason == "time limit"
    await eventually(lambda: len(fake_model.served) == 1, what="the abandoned answer")  # not into the next test


async def test_every_try_of_a_review_that_waited_on_the_queue_adds_up_in_one_record(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    # Try 1: an invalid answer (paid), then its repair turn finds no capacity and goes to the provider's queue.
    # Try 2: the first answer is replayed from the job's memo (not paid again), the repair's comes from the queue.
    fake_model.script_reply("not json")
    for _ in range(settings.model_retries):
        fake_model.script_error(429, CAPACITY)
    fake_model.script_reply(findings_json([bug_finding(severity="minor")]))  # minor: no verification request
    fake_model.async_polls_before_done = 0
    await review(web, settings, redis_url, open_pull(fake_github))
    [entry] = await ledger_entries(redis_url)
    truth = served_totals(fake_model)
    assert entry.outcome == "reviewed" and entry.async_requests == 1 and entry.requests == truth["requests"]
    assert (entry.prompt_tokens, entry.completion_tokens) == (truth["prompt"], truth["completion"])
    assert entry.cost_usd == pytest.approx(truth["cost"], abs=1e-6)  # each try is kept to the micro-dollar
    assert entry.duration_s >= settings.async_poll_s  # from the first try's start, not the last one's


async def test_records_older_than_the_retention_are_trimmed(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    now = time.time()
    try:
        ledger = Ledger(redis, days=2)
        for days_ago in (5, 3, 1):
            at = now - days_ago * 86_400
            await ledger.record(Entry(REPO, days_ago, "sha", "reviewed"), now=at, stream_id=f"{int(at * 1000)}-0")
        await ledger.record(Entry(REPO, 0, "sha", "reviewed"), now=now)
        assert [e.pr for e in [e async for e in ledger.entries()]] == [1, 0]
        assert [d.runs for d in await ledger.per_day(3, now)] == [0, 1, 1]
    finally:
        await redis.aclose()
