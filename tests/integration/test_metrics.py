"""/metrics after real reviews: the web app and the worker are separate processes that share only Redis."""

from __future__ import annotations

import tempfile
from pathlib import Path

import httpx
import pytest

from reviewbot.queue.embedded import EmbeddedRedis
from reviewbot.settings import Settings
from reviewbot.settings.catalogue import DEFAULT_PRICES
from reviewbot.webhooks.server import create_app
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.fakes.server import ServedApp
from tests.helpers import HEAD_CALC, bug_finding, deliver, open_pull, payload
from tests.observe_helpers import scrape, served_totals, value, worker_in_another_process

MODEL = "@cf/moonshotai/kimi-k2.6"  # the default model, which serves its own requests


def test_metrics_after_two_reviews_by_a_worker_in_another_process(
        web: httpx.Client, env: dict[str, str], fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    pull = open_pull(fake_github)
    fake_model.script_reply(findings_json([bug_finding(severity="minor")]))  # minor: no verification request
    opened = payload("pull_request.opened", pull)
    assert deliver(web, "pull_request", opened, delivery="d-1").json()["status"] == "queued"
    assert deliver(web, "pull_request", opened, delivery="d-1").json()["status"] == "duplicate"
    assert deliver(web, "pull_request", opened, secret="not-the-secret").status_code == 401
    assert deliver(web, "star", {"action": "created"}).json()["status"] == "ignored"
    worker_in_another_process(env)
    pushed = fake_github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC + "\n\ndef extra():\n    return 1\n"})
    assert deliver(web, "pull_request", payload("pull_request.synchronize", pushed)).status_code == 202
    worker_in_another_process(env)
    assert len(fake_github.reviews[(REPO, 7)]) == 2

    samples = scrape(web)
    truth = served_totals(fake_model)
    at = {"model": MODEL, "installation": str(INSTALLATION)}
    assert value(samples, "reviewbot_webhooks_total", event="pull_request", outcome="queued") == 2
    assert value(samples, "reviewbot_webhooks_total", event="pull_request", outcome="duplicate") == 1
    assert value(samples, "reviewbot_webhooks_total", event="pull_request", outcome="bad_signature") == 1
    assert value(samples, "reviewbot_webhooks_total", event="other", outcome="ignored") == 1
    assert value(samples, "reviewbot_jobs_total", function="review", outcome="reviewed") == 2
    assert value(samples, "reviewbot_review_duration_seconds_count", outcome="reviewed") == 2
    assert value(samples, "reviewbot_review_duration_seconds_sum", outcome="reviewed") > 0
    assert value(samples, "reviewbot_model_request_duration_seconds_count", model=MODEL) == 2
    assert value(samples, "reviewbot_model_requests_total", **at, mode="sync") == 2
    for kind in ("prompt", "cached", "completion"):
        assert value(samples, "reviewbot_model_tokens_total", **at, kind=kind) == truth[kind], kind
    assert truth["cached"] > 0  # the re-review after the push hit the provider's cache
    assert value(samples, "reviewbot_model_cost_usd_total", **at) == pytest.approx(truth["cost"])
    price = DEFAULT_PRICES[MODEL]  # a cached token saves the difference between the two input prices
    saved = truth["cached"] * (price.input - price.cached_input) / 1e6
    assert value(samples, "reviewbot_cache_savings_usd_total", **at) == pytest.approx(saved)
    assert value(samples, "reviewbot_cache_hit_ratio", model=MODEL) == pytest.approx(truth["cached"] / truth["prompt"])
    last_token = [w for key, w in fake_github.rate_windows.items() if key.startswith("token:")][-1]
    assert value(samples, "reviewbot_github_rate_limit_remaining", installation=str(INSTALLATION)) == \
        fake_github.rate_limit - last_token.used
    assert value(samples, "reviewbot_queue_depth", state="ready") == 0
    assert value(samples, "reviewbot_jobs_running") == 0
    assert value(samples, "reviewbot_redis_up") == 1


async def test_failed_and_superseded_jobs_are_counted_by_outcome(
        web: httpx.Client, env: dict[str, str], fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    fake_model.script_reply("not json")
    fake_model.script_reply("still not json")
    assert deliver(web, "pull_request", payload("pull_request.opened", open_pull(fake_github))).status_code == 202
    old = open_pull(fake_github, number=8)
    fake_github.update_head(REPO, 8, {"app/calc.py": HEAD_CALC + "# newer\n"})
    assert deliver(web, "pull_request", payload("pull_request.opened", old)).status_code == 202
    worker_in_another_process(env)
    samples = scrape(web)
    assert value(samples, "reviewbot_jobs_total", function="review", outcome="failed") == 1
    assert value(samples, "reviewbot_jobs_total", function="review", outcome="superseded") == 1
    # A failed review still paid for both answers; the metrics say so.
    truth = served_totals(fake_model)
    assert truth["requests"] == 2
    assert value(samples, "reviewbot_model_tokens_total", model=MODEL, installation=str(INSTALLATION),
                 kind="prompt") == truth["prompt"]


def test_metrics_need_the_dashboard_token_when_one_is_set(env: dict[str, str]) -> None:
    token = "metrics-token-0123456789"
    settings = Settings.from_mapping(env | {"REVIEWBOT_DASHBOARD_TOKEN": token})
    with ServedApp(create_app(settings, env["REDIS_URL"]), lifespan="on") as served, \
            httpx.Client(base_url=served.url, timeout=10) as client:
        assert client.get("/metrics").status_code == 401
        assert value(scrape(client, authorization=f"Bearer {token}"), "reviewbot_redis_up") == 1


def test_metrics_are_refused_off_loopback_without_a_token(env: dict[str, str]) -> None:
    settings = Settings.from_mapping(env)
    assert settings.dashboard_token is None
    # Listening on every interface: the scrape could come from anywhere, so installation ids and costs stay shut.
    with ServedApp(create_app(settings, env["REDIS_URL"], listen_host="0.0.0.0"), lifespan="on") as served, \
            httpx.Client(base_url=served.url, timeout=10) as client:
        refused = client.get("/metrics")
        assert refused.status_code == 403 and "REVIEWBOT_DASHBOARD_TOKEN" in refused.text
        assert "reviewbot_" not in refused.text
    with ServedApp(create_app(settings, env["REDIS_URL"], listen_host="127.0.0.1"), lifespan="on") as served, \
            httpx.Client(base_url=served.url, timeout=10) as client:
        assert value(scrape(client), "reviewbot_redis_up") == 1  # loopback without a token: open, as before


def test_with_redis_down_metrics_say_so_and_readiness_fails_but_liveness_holds(settings: Settings) -> None:
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="rb-down-", dir="/tmp")))
    url = server.start()
    try:
        with ServedApp(create_app(settings, url), lifespan="on") as served, \
                httpx.Client(base_url=served.url, timeout=10) as client:
            server.stop()
            samples = scrape(client)
            assert samples == {("reviewbot_redis_up", frozenset()): 0.0}
            ready = client.get("/readyz")
            assert ready.status_code == 503 and ready.json()["redis"] == "unreachable"
            assert client.get("/healthz").status_code == 200
    finally:
        server.stop()
