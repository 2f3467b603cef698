"""The model client against the fake Workers AI: queue fallback, permanent errors, schema forms, prices, budgets."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from reviewbot.inference.pricing import cost
from reviewbot.inference.ratelimit import RequestBucket
from reviewbot.jobs.registry import service_worker
from reviewbot.settings import Settings
from reviewbot.settings.catalogue import DEFAULT_PRICES
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import bug_finding, deliver, open_pull, payload, run_worker_until_idle
from tests.integration.test_cli_review import model_env, repo, run_cli  # noqa: F401  (the `repo` fixture)

CAPACITY = {"result": None, "success": False, "errors": [{"code": 3040, "message": "Capacity temporarily exceeded"}]}


def only_check(github: FakeGitHub) -> dict[str, Any]:
    [check] = github.check_runs.values()
    return check


async def review_once(web: httpx.Client, settings: Settings, redis_url: str, github: FakeGitHub,
                      number: int = 7) -> None:
    deliver(web, "pull_request", payload("pull_request.opened", open_pull(github, number=number)))
    await run_worker_until_idle(settings, redis_url)


async def test_capacity_errors_go_to_the_async_queue_and_free_the_worker(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    for _ in range(3):  # every synchronous attempt is out of capacity
        fake_model.script_error(429, CAPACITY)
    fake_model.script_reply(findings_json([bug_finding()]))  # what the queued request answers
    fake_model.async_polls_before_done = 1
    deliver(web, "pull_request", payload("pull_request.opened", open_pull(fake_github)))
    worker = service_worker(settings, redis_url, burst=True, handle_signals=False)
    try:
        await worker.async_run()
    finally:
        await worker.close()
    assert len(fake_model.review_requests()) == 3
    submit, *polls = fake_model.async_calls
    assert "requests" in submit and "model" not in submit["requests"][0]
    assert [p["request_id"] for p in polls] == [polls[0]["request_id"]] * 2  # running once, then done
    # The job gave its slot back while waiting: it was deferred and re-run, never asleep in the worker.
    assert worker.jobs_retried == 2
    [review] = fake_github.reviews[(REPO, 7)]
    assert len(review["comments"]) == 1 and "asynchronous queue" in review["body"]
    assert only_check(fake_github)["status"] == "completed"


async def test_reject_if_busy_sends_a_busy_request_to_the_queue_at_once(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.script_error(429, CAPACITY)
    fake_model.async_polls_before_done = 0
    busy_first = dataclasses.replace(settings, reject_if_busy=True)
    await review_once(web, busy_first, redis_url, fake_github)
    assert len(fake_model.requests) == 1
    assert fake_model.requests[0].json["options"] == {"rejectIfBusy": True}
    assert len(fake_github.reviews[(REPO, 7)]) == 1


@pytest.mark.parametrize(("status", "body", "says"), [
    (429, {"errors": [{"code": 3036, "message": "account limited"}]}, "daily free allowance"),
    (403, {"errors": [{"code": 5035, "message": "paid plan"}]}, "Workers Paid"),
    (413, {"errors": [{"code": 3006, "message": "Request too large"}]}, "too large"),
    (400, {"error": {"message": "This model's maximum context length is 262144 tokens"}}, "larger than the model"),
    (401, {"errors": [{"code": 10000, "message": "Authentication error"}]}, "CLOUDFLARE_API_TOKEN"),
    # 400s that are not about the request's shape: one request, no walk through the response_format forms.
    (400, {"errors": [{"code": 5007, "message": "No such model"}]}, "no such model"),
    (400, {"errors": [{"code": 3003, "message": "Request is missing headers or body"}]}, "incomplete"),
    (400, {"errors": [{"code": 5004, "message": "Invalid data type"}]}, "refused the request's data"),
    # 403s that are not about credentials.
    (403, {"errors": [{"code": 5018, "message": "not allowed"}]}, "not allowed to access this model"),
    (403, {"errors": [{"code": 3041, "message": "not allowed"}]}, "not allowed to access this model"),
    (403, {"errors": [{"code": 3023, "message": "Service unavailable for account"}]}, "blocked the account"),
])
async def test_permanent_errors_end_the_review_visibly_without_retrying(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel,
        status: int, body: dict[str, Any], says: str) -> None:
    fake_model.script_error(status, body)
    await review_once(web, settings, redis_url, fake_github)
    check = only_check(fake_github)
    assert check["conclusion"] == "neutral" and says in check["output"]["summary"]
    assert len(fake_model.requests) == 1 and fake_model.async_calls == []
    assert fake_github.reviews[(REPO, 7)] == []


async def test_a_rejected_schema_form_falls_back_to_the_next(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.rejected_forms = {"strict"}
    fake_model.script_reply(findings_json([bug_finding()]))
    await review_once(web, settings, redis_url, fake_github)
    first, second = (r.json["response_format"] for r in fake_model.review_requests())
    assert first["json_schema"]["name"] == "review" and first["json_schema"]["strict"] is True
    # The second form keeps the `name` the published schema requires (the contract check would refuse it else).
    assert second["json_schema"]["name"] == "review" and "strict" not in second["json_schema"]
    assert len(fake_github.reviews[(REPO, 7)]) == 1


def test_the_output_limit_reaches_a_server_that_reads_only_max_tokens_and_one_that_refuses_it(
        repo: Any, fake_model: FakeModel) -> None:  # noqa: F811
    """llama.cpp's Python server and Ollama read only `max_tokens`; OpenAI's reasoning models refuse it."""
    env = {**model_env(fake_model), "REVIEWBOT_MAX_COMPLETION_TOKENS": "700"}
    fake_model.rejected_fields = {"max_tokens"}
    try:
        done = run_cli(["review", "--repo", str(repo), "--base", "main", "--format", "json"], env, repo)
    finally:
        fake_model.rejected_fields = set()
    assert done.returncode == 0, done.stderr
    refused, *answered = fake_model.review_requests()
    assert refused.json["max_tokens"] == refused.json["max_completion_tokens"] == 700
    assert answered and all("max_tokens" not in r.json for r in answered)
    assert all(r.json["max_completion_tokens"] == 700 for r in answered)
    # The refusal was about the limit's name, not the output form: the strictest form is still the one used.
    assert {r.json["response_format"]["type"] for r in answered} == {"json_schema"}


async def test_reasoning_is_read_but_never_posted(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.script_reply(findings_json([bug_finding()]), reasoning="PRIVATE CHAIN OF THOUGHT")
    thinking = dataclasses.replace(settings, thinking=False)
    await review_once(web, thinking, redis_url, fake_github)
    assert fake_model.requests[0].json["chat_template_kwargs"] == {"enable_thinking": False}
    posted = json.dumps(fake_github.reviews[(REPO, 7)]) + json.dumps(only_check(fake_github))
    assert "PRIVATE CHAIN" not in posted


def test_cost_is_priced_by_the_model_that_served_the_request(
        repo: Any, fake_model: FakeModel) -> None:  # noqa: F811
    fake_model.served_model = "@cf/moonshotai/kimi-k2.6"  # the provider aliases deprecated K2.5 to K2.6
    env = {**model_env(fake_model), "REVIEWBOT_MODEL": "@cf/moonshotai/kimi-k2.5"}
    try:
        args = ["review", "--repo", str(repo), "--base", "main", "--format", "json"]
        run_cli(args, env, repo)
        done = run_cli(args, env, repo)  # second run: the prefix is cached
    finally:
        fake_model.served_model = None
    usage = json.loads(done.stdout)["usage"]
    assert usage["cached_tokens"] > 0
    k26 = DEFAULT_PRICES["@cf/moonshotai/kimi-k2.6"]
    expected = cost(k26, usage["prompt_tokens"], usage["cached_tokens"], usage["completion_tokens"])
    assert math.isclose(usage["cost_usd"], round(expected, 6), abs_tol=1e-6)
    assert "model served differs" in done.stderr


async def test_the_request_bucket_queues_bursts(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    bucket = RequestBucket(redis, "acct", requests_per_minute=60)  # 1/s, bursts of 6
    waits = [await bucket.take() for _ in range(7)]
    await redis.aclose()
    assert waits[:6] == [0.0] * 6
    assert 0.9 < waits[6] <= 1.0
