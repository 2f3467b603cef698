"""Webhook intake over real HTTP: verify, parse, decide, enqueue, answer; bad input never enqueues."""

from __future__ import annotations

import json

import httpx
import pytest
from redis import Redis

from reviewbot.settings import Settings
from reviewbot.webhooks.server import create_app
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.server import ServedApp
from tests.helpers import deliver, open_pull, payload

QUEUE = "arq:queue"


def queued(redis_url: str) -> list[dict[str, object]]:
    """The jobs waiting in arq's queue, decoded as JSON (which also proves nothing was pickled)."""
    with Redis.from_url(redis_url) as r:
        return [json.loads(r.get(f"arq:job:{job_id.decode()}") or b"null") for job_id in r.zrange(QUEUE, 0, -1)]


def test_opened_pr_is_enqueued_as_a_small_json_job(web: httpx.Client, fake_github: FakeGitHub,
                                                   redis_url: str) -> None:
    pull = open_pull(fake_github)
    response = deliver(web, "pull_request", payload("pull_request.opened", pull))
    assert response.status_code == 202
    assert response.json()["status"] == "queued"
    [job] = queued(redis_url)
    assert job["f"] == "review_pull_request"
    assert job["a"] == [31337, REPO, 7, pull["head"]["sha"]]


def test_the_same_head_sha_twice_is_one_job(web: httpx.Client, fake_github: FakeGitHub, redis_url: str) -> None:
    pull = open_pull(fake_github)
    first = deliver(web, "pull_request", payload("pull_request.opened", pull))
    second = deliver(web, "pull_request", payload("pull_request.synchronize", pull))
    assert (first.json()["status"], second.json()["status"]) == ("queued", "already queued")
    assert len(queued(redis_url)) == 1


@pytest.mark.parametrize("secret", ["wrong-secret", ""])
def test_a_bad_signature_is_401_and_nothing_is_enqueued(web: httpx.Client, fake_github: FakeGitHub,
                                                        redis_url: str, secret: str) -> None:
    body = payload("pull_request.opened", open_pull(fake_github))
    response = deliver(web, "pull_request", body, secret=secret)
    assert response.status_code == 401
    unsigned = web.post("/webhooks/github", json=body, headers={"X-GitHub-Event": "pull_request"})
    assert unsigned.status_code == 401
    assert queued(redis_url) == []


def test_without_a_configured_secret_every_delivery_is_refused(env: dict[str, str], redis_url: str) -> None:
    unconfigured = Settings.from_mapping({k: v for k, v in env.items() if k != "GITHUB_WEBHOOK_SECRET"})
    with ServedApp(create_app(unconfigured, redis_url), lifespan="on") as served:
        response = deliver(httpx.Client(base_url=served.url), "ping", {"zen": "hi"})
    assert response.status_code == 503 and "GITHUB_WEBHOOK_SECRET" in response.json()["error"]


def test_malformed_payloads_are_400_with_a_message(web: httpx.Client, redis_url: str) -> None:
    assert deliver(web, "pull_request", b"{not json").status_code == 400
    assert deliver(web, "pull_request", b"[1, 2]").status_code == 400
    missing = deliver(web, "pull_request", {"action": "opened", "pull_request": {"number": 1}})
    assert missing.status_code == 400 and "repository" in missing.json()["error"]
    assert deliver(web, "", {"zen": "x"}).status_code == 400
    assert queued(redis_url) == []


def test_wrong_content_type_is_415_and_huge_bodies_413(web: httpx.Client) -> None:
    assert deliver(web, "ping", {"zen": "x"}, headers={"Content-Type": "text/plain"}).status_code == 415
    assert deliver(web, "ping", b" " * (25 * 1024 * 1024 + 1)).status_code == 413


def test_ping_installation_and_unhandled_events(web: httpx.Client, redis_url: str) -> None:
    assert deliver(web, "ping", payload("ping")).json() == {"status": "pong"}
    ignored = deliver(web, "star", {"action": "created"})
    assert ignored.status_code == 202 and ignored.json()["status"] == "ignored"
    installed = deliver(web, "installation", {"action": "created", "installation": {"id": 1}})
    assert installed.status_code == 202 and installed.json() == {"status": "accepted",
                                                                 "reason": "installation.created"}
    edited = deliver(web, "pull_request", {"action": "edited", "pull_request": {"number": 1},
                                           "repository": {"full_name": REPO}})
    assert edited.json()["status"] == "ignored"
    assert queued(redis_url) == []


def test_healthz_is_liveness_and_readyz_checks_redis_and_configuration(web: httpx.Client) -> None:
    assert web.get("/healthz").json() == {"status": "ok"}
    assert web.get("/readyz").json() == {"status": "ready", "redis": "ok", "config": "ok"}
