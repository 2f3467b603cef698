"""The bot and the fake GitHub against GitHub's published descriptions (specs/github/, tests/fixtures/webhooks/
published/): GitHub's own webhook examples through the intake, fork re-runs, and the contract check itself."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from redis import Redis

from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes import github_contract
from tests.fakes.github import FakeGitHub
from tests.helpers import comment, deliver, open_pull, payload, run_worker_until_idle
from tests.integration.test_webhooks import queued

PUBLISHED = Path(__file__).resolve().parents[1] / "fixtures" / "webhooks" / "published"


def published() -> list[tuple[str, dict[str, Any]]]:
    return [(path.stem, json.loads(line)) for path in sorted(PUBLISHED.glob("*.jsonl"))
            for line in path.read_text().splitlines() if line.strip()]


def test_every_published_example_of_the_apps_events_goes_through_the_intake(web: httpx.Client,
                                                                            redis_url: str) -> None:
    examples = published()
    answers: Counter[tuple[str, int]] = Counter()
    for event, body in examples:
        if "installation" in body:  # GitHub's examples name other installations; ours is the fake's
            body["installation"]["id"] = INSTALLATION
        response = deliver(web, event, body)
        assert response.status_code < 500, (event, body.get("action"), response.text)
        if response.status_code == 400:
            # A few examples were captured from repository webhooks, which carry no installation; an App's
            # deliveries always do, and without one there is no token to review with: a clear 400.
            assert "installation" not in body and "'installation'" in response.text, response.text
            continue
        answers[(event, response.status_code)] += 1
    assert len(examples) >= 70 and {event for event, _ in examples} >= {
        "pull_request", "issue_comment", "check_run", "check_suite", "pull_request_review_comment",
        "installation", "installation_repositories", "ping"}
    # Everything else is accepted (202) or, for a ping, answered at once (200).
    assert {status for _, status in answers} <= {200, 202}, answers
    assert sum(answers.values()) >= 70
    # opened/reopened/synchronize/ready_for_review examples become review jobs (one per PR and head).
    assert queued(redis_url)


async def test_rerun_and_rereview_on_a_fork_pull_request_review_it_again(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub) -> None:
    pull = open_pull(fake_github, head_repo="contributor/widgets")
    deliver(web, "pull_request", payload("pull_request.opened", pull))
    await run_worker_until_idle(settings, redis_url)
    for name in ("check_run.rerequested", "check_run.requested_action"):
        body = payload(name, pull)
        body["check_run"]["pull_requests"] = []  # a head in another repository: GitHub names no pull request
        body["check_run"]["external_id"] = str(pull["number"])  # what our check run carries
        answer = deliver(web, "check_run", body)
        assert answer.json()["status"] == "queued", answer.json()
        await run_worker_until_idle(settings, redis_url)
    assert len(fake_github.reviews[(REPO, 7)]) == 3
    assert {c["status"] for c in fake_github.check_runs.values()} == {"completed"}
    with Redis.from_url(redis_url) as r:
        assert not r.keys("reviewbot:full:*")


async def test_rerun_all_checks_on_a_fork_pull_request_reviews_it_again(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub) -> None:
    pull = open_pull(fake_github, head_repo="contributor/widgets")
    deliver(web, "pull_request", payload("pull_request.opened", pull))
    await run_worker_until_idle(settings, redis_url)
    [run] = fake_github.check_runs.values()
    body = payload("check_suite.rerequested", pull)
    body["check_suite"]["pull_requests"] = []  # a head in another repository: GitHub names no pull request
    body["check_suite"]["id"] = run["check_suite"]["id"]
    answer = deliver(web, "check_suite", body)
    assert answer.json()["status"] == "queued", answer.json()
    await run_worker_until_idle(settings, redis_url)  # the suite's check runs name the PR; its review is queued
    await run_worker_until_idle(settings, redis_url)
    assert len(fake_github.reviews[(REPO, 7)]) == 2
    assert {c["status"] for c in fake_github.check_runs.values()} == {"completed"}


@pytest.mark.parametrize(("method", "path", "kwargs", "expected"), [
    ("POST", "/check-runs", {"json": {"name": "reviewbot", "head_sha": "abc", "status": "done"}},
     "request body status: 'done' is not one of"),
    ("GET", "/pulls/7/files", {"params": {"per_page": "100", "pages": "2"}}, "undocumented query parameter 'pages'"),
    ("GET", "/pulls/seven", {}, "path parameter pull_number='seven'"),
    ("GET", "/pulls/7/files", {"headers": {"Accept": "application/vnd.github.diff"}},
     "Accept 'application/vnd.github.diff' is not a media type this operation serves"),
    ("DELETE", "/pulls/7", {}, "GitHub documents only ['GET'"),
    ("POST", "/issues/7/comments", {"json": {"bod": "hi"}}, "'body' is a required property"),
])
def test_a_request_that_breaks_githubs_description_is_a_violation(
        fake_github: FakeGitHub, method: str, path: str, kwargs: dict[str, Any], expected: str) -> None:
    open_pull(fake_github)
    fake_github.personal_tokens.add("ghp_contract")
    headers = {"Authorization": "token ghp_contract"} | kwargs.pop("headers", {})
    httpx.request(method, f"{fake_github.base_url}/repos/{REPO}{path}", headers=headers, **kwargs)
    violations = fake_github.take_violations()
    # The autouse fixture in tests/conftest_fakes.py fails any test that leaves one behind.
    assert any(expected in v for v in violations), violations


def test_a_reply_that_breaks_githubs_description_is_a_violation() -> None:
    # What the fake would send for a permission check if it named an undocumented field or a wrong type.
    reply = {"permission": "write", "role_name": "write", "user": None, "access": "write"}
    [problem] = github_contract.check_response("GET", f"/repos/{REPO}/collaborators/alice/permission", 200,
                                               "application/json", reply)
    assert "'access' was unexpected" in problem
    assert github_contract.check_response("GET", f"/repos/{REPO}/pulls/7", 200, "application/json",
                                          {"number": "7"}) == [
        "GET /repos/{owner}/{repo}/pulls/{pull_number} → 200: response number: '7' is not of type 'integer'"]


async def test_a_custom_role_counts_for_the_write_access_it_grants(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub) -> None:
    # An organisation's custom roles show up as `role_name`; `permission` is the base role they build on.
    fake_github.custom_roles.update({"security-reviewer": "write", "auditor": "read"})
    fake_github.permissions.update({"sam": "security-reviewer", "ada": "auditor"})
    pull = open_pull(fake_github)
    for login in ("ada", "sam"):
        deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test review", login=login,
                                              association="CONTRIBUTOR"))
        await run_worker_until_idle(settings, redis_url)
    assert len(fake_github.reviews[(REPO, 7)]) == 1  # sam's; ada was told she needs write access
    assert [c["body"] for c in fake_github.issue_comments[(REPO, 7)] if "write access" in c["body"]]
