"""The dashboard: in headless Chromium with real reviews, behind its token, with safe headers and no secrets."""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from redis.asyncio import Redis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from reviewbot.observe.ledger import Entry, Ledger
from reviewbot.outcomes.outcome_store import OutcomeStore
from reviewbot.outcomes.records import FindingRecord
from reviewbot.settings import Settings
from reviewbot.webhooks.server import create_app
from tests.browser import dump_dom, find_chromium, screenshot
from tests.conftest import MODEL_TOKEN, REPO, WEBHOOK_SECRET
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.fakes.server import ServedApp
from tests.helpers import bug_finding, deliver, open_pull, payload, run_worker_until_idle

TOKEN = "dashboard-token-0123456789"


@pytest.fixture
def guarded(env: dict[str, str]) -> Iterator[tuple[ServedApp, Settings]]:
    """reviewbot's web app with REVIEWBOT_DASHBOARD_TOKEN set."""
    settings = Settings.from_mapping(env | {"REVIEWBOT_DASHBOARD_TOKEN": TOKEN})
    with ServedApp(create_app(settings, env["REDIS_URL"]), lifespan="on") as served:
        yield served, settings


@pytest.fixture
def auto_login(guarded: tuple[ServedApp, Settings]) -> Iterator[str]:
    """A page on another port (same site) that posts the token to the login form, as a person would."""
    target = f"{guarded[0].url}/dashboard/login"

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(f'<!doctype html><form method="post" action="{target}"><input name="token" '
                            f'value="{TOKEN}"></form><script>document.forms[0].submit()</script>')

    with ServedApp(Starlette(routes=[Route("/", page)])) as helper:
        yield f"{helper.url}/"


async def two_reviews(settings: Settings, redis_url: str, github: FakeGitHub, model: FakeModel,
                      client: httpx.Client) -> None:
    model.script_reply(findings_json([bug_finding(severity="minor")]))  # minor: no verification request
    model.script_reply("not json")
    model.script_reply("still not json")
    for number in (7, 8):
        assert deliver(client, "pull_request", payload("pull_request.opened", open_pull(github, number))).is_success
    await run_worker_until_idle(settings, redis_url)


async def test_the_dashboard_in_headless_chromium_shows_recent_reviews_and_the_charts(
        guarded: tuple[ServedApp, Settings], auto_login: str, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel, tmp_path: Path) -> None:
    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium here: `apt-get install chromium` (.ci/run installs it on CI)")
    served, settings = guarded
    with httpx.Client(base_url=served.url, timeout=10) as client:
        await two_reviews(settings, redis_url, fake_github, fake_model, client)

    refused = dump_dom(binary, f"{served.url}/dashboard")
    assert "Sign in to the dashboard" in refused and "recent-reviews" not in refused and REPO not in refused

    dom = dump_dom(binary, auto_login)
    table = re.search(r'<table id="recent-reviews">.*?</table>', dom, re.DOTALL)
    assert table is not None, dom[:2000]
    rows = re.findall(r"<tr class=\"outcome-(\w+)\">(.*?)</tr>", table.group(0), re.DOTALL)
    assert sorted(outcome for outcome, _ in rows) == ["failed", "reviewed"]
    assert f'href="{fake_github.base_url}/{REPO}/pull/7"' in table.group(0)
    assert re.search(r'<svg class="chart cost-chart"[^>]*>.*?<rect class="bar"', dom, re.DOTALL)
    assert dom.count('<rect class="bar"') == 30  # one bar per day
    assert '<svg class="chart cache-chart"' in dom
    failures = re.search(r'<table id="failures">.*?</table>', dom, re.DOTALL)
    assert failures is not None and "not valid review JSON" in failures.group(0)

    shot = tmp_path / "dashboard.png"
    screenshot(binary, auto_login, shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_the_token_is_required_as_a_bearer_header_or_a_login_cookie(
        guarded: tuple[ServedApp, Settings]) -> None:
    served, _ = guarded
    with httpx.Client(base_url=served.url, timeout=10) as client:
        anonymous = client.get("/dashboard")
        assert anonymous.status_code == 401 and "Sign in" in anonymous.text
        assert anonymous.headers["www-authenticate"].startswith("Bearer")
        assert client.get("/dashboard", headers={"Authorization": "Bearer wrong-token-0123456789"}).status_code == 401
        assert client.get("/dashboard", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        wrong = client.post("/dashboard/login", data={"token": "guess"})
        assert wrong.status_code == 401 and "not the configured one" in wrong.text and not wrong.cookies
        right = client.post("/dashboard/login", data={"token": TOKEN})
        assert right.status_code == 303 and right.headers["location"] == "/dashboard"
        cookie = right.headers["set-cookie"]
        assert TOKEN not in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert client.get("/dashboard").status_code == 200  # the client kept the cookie
        assert client.post("/dashboard/logout").status_code == 303
        assert client.get("/dashboard").status_code == 401


def test_every_dashboard_answer_has_the_security_headers(guarded: tuple[ServedApp, Settings]) -> None:
    served, _ = guarded
    with httpx.Client(base_url=served.url, timeout=10) as client:
        for response in (client.get("/dashboard"), client.get("/dashboard/login"),
                         client.get("/dashboard", headers={"Authorization": f"Bearer {TOKEN}"}),
                         client.get("/dashboard/static/dashboard.css")):
            assert response.headers["content-security-policy"].startswith("default-src 'self'")
            assert response.headers["x-frame-options"] == "DENY"
            assert response.headers["x-content-type-options"] == "nosniff"
            assert response.headers["referrer-policy"] == "no-referrer"


def test_without_a_token_the_dashboard_is_off_when_other_machines_can_reach_it(
        settings: Settings, env: dict[str, str]) -> None:
    with ServedApp(create_app(settings, env["REDIS_URL"], listen_host="0.0.0.0"), lifespan="on") as served, \
            httpx.Client(base_url=served.url, timeout=10) as client:
        off = client.get("/dashboard")
        assert off.status_code == 403 and "REVIEWBOT_DASHBOARD_TOKEN is not set" in off.text
        assert client.post("/dashboard/login", data={"token": "x"}).status_code == 403
    with ServedApp(create_app(settings, env["REDIS_URL"], listen_host="127.0.0.1"), lifespan="on") as served, \
            httpx.Client(base_url=served.url, timeout=10) as client:
        assert client.get("/dashboard").status_code == 200  # loopback only: open without a token


async def test_no_secret_is_ever_rendered(guarded: tuple[ServedApp, Settings], redis_url: str,
                                          env: dict[str, str]) -> None:
    served, _ = guarded
    redis = Redis.from_url(redis_url)
    try:  # a failure reason that quotes secrets, as a careless exception message might
        await Ledger(redis, 90).record(Entry(REPO, 9, "a" * 40, "failed", reason=f"401 for {MODEL_TOKEN} and "
                                             f"{WEBHOOK_SECRET} with {TOKEN}"), now=time.time())
    finally:
        await redis.aclose()
    with httpx.Client(base_url=served.url, timeout=10) as client:
        page = client.get("/dashboard", headers={"Authorization": f"Bearer {TOKEN}"}).text
    assert "401 for *** and *** with ***" in page
    for secret in (MODEL_TOKEN, WEBHOOK_SECRET, TOKEN, env["GITHUB_PRIVATE_KEY"].splitlines()[1]):
        assert secret not in page


async def test_the_dashboard_charts_what_people_did_with_findings_per_repository(
        guarded: tuple[ServedApp, Settings], redis_url: str) -> None:
    served, _ = guarded
    now = time.time()
    outcomes = ["fixed", "fixed", "dismissed", "open_at_merge", ""]
    records = [FindingRecord(installation=1, repo=REPO, pr=n, fingerprint=f"{n:016x}",
                             category="security" if n < 2 else "bug", severity="major", path="app/calc.py", line=n,
                             posted_at=now - 3600, outcome=outcome, thumbs_up=1 if n == 0 else 0)
               for n, outcome in enumerate(outcomes)]
    records.append(dataclasses.replace(records[0], repo="acme/other", pr=99, outcome="resolved", thumbs_up=0))
    old = dataclasses.replace(records[0], pr=100, fingerprint="f" * 16, posted_at=now - 40 * 86_400)  # outside
    redis = Redis.from_url(redis_url)
    try:
        await OutcomeStore(redis).posted([*records, old])
    finally:
        await redis.aclose()
    with httpx.Client(base_url=served.url, timeout=10) as client:
        page = client.get("/dashboard", headers={"Authorization": f"Bearer {TOKEN}"}).text
    section = page.split('<section class="panel" id="outcomes">', 1)[1].split("</section>", 1)[0]
    assert section.count('<svg class="chart outcome-chart"') == 2  # one per repository, most findings first
    assert section.index(REPO) < section.index("acme/other")
    assert f"{REPO}: 40% fixed · 20% dismissed · 5 posted" in " ".join(section.split())
    assert "👍 1 👎 0" in section
    assert section.count('<rect class="fixed"') == 1 and section.count('<rect class="resolved"') == 1
    assert "100% fixed</text>" in section  # security: both fixed
