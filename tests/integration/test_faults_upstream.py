"""A flaky GitHub and a struggling model, with a real `reviewbot worker` process: every review either lands once
or ends visibly in its check run, and nothing secret reaches the logs on the way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from redis.asyncio import Redis

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.credentials import InstallationCredentials
from reviewbot.app.port import GitHubPort
from reviewbot.settings import Settings
from reviewbot.state import keys
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import bug_finding, deliver, open_pull, payload, run_worker_until_idle
from tests.integration.test_faults import completed_runs, secrets_of
from tests.processes import leaked, wait_for, worker

SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
             "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}
CAPACITY = {"result": None, "success": False, "errors": [{"code": 3040, "message": "Capacity temporarily exceeded"}]}
TRUNCATED = '{"summary": "total() now divides by the item count", "findings": [{"path": "app/calc.py", "line'


def review_in_a_worker(env: dict[str, str], web: httpx.Client, github: FakeGitHub, tmp_path: Path,
                       timeout: float = 40) -> tuple[dict[str, Any], str]:
    """Deliver an opened PR, run a worker process until the check run completes; (check run, worker log)."""
    pull = open_pull(github)
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    with worker(env, tmp_path) as process:
        wait_for(lambda: completed_runs(github), timeout, "the check run to complete")
    [check] = github.check_runs.values()  # one check run, however often the job ran
    log = process.text()
    assert leaked(log, secrets_of(env, github)) == []
    return check, log


def test_a_502_on_every_third_github_request_and_a_secondary_limit_while_publishing(
        env: dict[str, str], web: httpx.Client, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    fake_model.script_reply(findings_json([bug_finding()]))
    fake_github.inject("*", ".*", 502, "Bad Gateway", times=1000, every=3)
    fake_github.inject("POST", rf"/repos/{REPO}/pulls/7/reviews", 403, SECONDARY, {"retry-after": "1"})
    check, _ = review_in_a_worker(env, web, fake_github, tmp_path)

    [review] = fake_github.reviews[(REPO, 7)]
    assert len(review["comments"]) == 1
    assert check["conclusion"] == "neutral" and check["output"]["title"] == "1 finding"
    answered_502 = sum(1 for f in fake_github.faults if f.status == 502 for _ in range(1000 - f.remaining))
    assert answered_502 >= 5 and "secondary rate limit" not in check["output"]["summary"]
    assert len(fake_model.review_requests()) == 1  # GitHub's trouble never cost a second model call


def test_five_capacity_errors_from_the_model_delay_the_review_but_it_lands_once(
        env: dict[str, str], web: httpx.Client, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    for _ in range(5):
        fake_model.script_error(429, CAPACITY)
    fake_model.script_reply(findings_json([bug_finding()]))
    # No asynchronous queue (an OpenAI-compatible server): three attempts, a deferred job, three more.
    check, log = review_in_a_worker(env | {"REVIEWBOT_ASYNC_QUEUE": "off"}, web, fake_github, tmp_path)
    assert len(fake_github.reviews[(REPO, 7)]) == 1 and check["conclusion"] == "neutral"
    assert len(fake_model.review_requests()) == 6
    assert "review failed, may be retried" in log and "out of capacity" in log


def test_a_model_slower_than_its_timeout_is_retried(
        env: dict[str, str], web: httpx.Client, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    for _ in range(2):  # two answers that would take 30 s; REVIEWBOT_MODEL_TIMEOUT gives up after 1 s
        fake_model.script_delay(30)
        fake_model.script_reply(findings_json([]))
    fake_model.script_reply(findings_json([bug_finding()]))
    check, log = review_in_a_worker(env | {"REVIEWBOT_MODEL_TIMEOUT": "1"}, web, fake_github, tmp_path)
    [review] = fake_github.reviews[(REPO, 7)]
    assert len(review["comments"]) == 1 and len(fake_model.review_requests()) == 3
    assert check["output"]["title"] == "1 finding"
    assert log.count("ReadTimeout") == 2


def test_truncated_answers_end_the_review_visibly_and_post_nothing(
        env: dict[str, str], web: httpx.Client, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    for _ in range(2):  # the answer, then the answer with twice the room, both cut off at max_completion_tokens
        fake_model.script_reply(TRUNCATED, finish_reason="length")
    check, _ = review_in_a_worker(env, web, fake_github, tmp_path)
    assert fake_github.reviews[(REPO, 7)] == []
    assert check["conclusion"] == "neutral" and check["output"]["title"] == "Review failed"
    assert "cut off at its output limit" in check["output"]["summary"]


def test_a_truncated_response_body_is_retried(
        env: dict[str, str], web: httpx.Client, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    fake_model.script_error(200, '{"id": "chatcmpl-1", "choices": [{"index": 0, "message": {"content": "{\\"summ')
    fake_model.script_reply(findings_json([bug_finding()]))
    check, _ = review_in_a_worker(env, web, fake_github, tmp_path)
    assert len(fake_github.reviews[(REPO, 7)]) == 1 and check["output"]["title"] == "1 finding"
    assert len(fake_model.review_requests()) == 2


def test_a_review_longer_than_the_job_timeout_ends_its_check_run(
        env: dict[str, str], web: httpx.Client, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    fake_model.script_delay(15)  # arq would cancel the job at 3 s and leave the check run spinning
    check, _ = review_in_a_worker(env | {"REVIEWBOT_JOB_TIMEOUT": "3"}, web, fake_github, tmp_path)
    assert fake_github.reviews[(REPO, 7)] == []
    assert check["output"]["title"] == "Review failed" and "REVIEWBOT_JOB_TIMEOUT (3 s)" in check["output"]["summary"]


def test_a_check_run_created_despite_a_502_is_the_one_completed_and_archive_502s_are_retried(
        env: dict[str, str], web: httpx.Client, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    fake_github.inject("POST", rf"/repos/{REPO}/check-runs", 502, "Bad Gateway", after=True)
    fake_github.inject("GET", r"/_codeload/.*", 502, "Bad Gateway")
    fake_model.script_reply(findings_json([bug_finding()]))
    pull = open_pull(fake_github)
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    with worker(env, tmp_path) as process:
        wait_for(lambda: fake_github.reviews[(REPO, 7)], 40, "the review")
        wait_for(lambda: all(r["status"] == "completed" for r in fake_github.check_runs.values()), 10, "checks")
    assert len(fake_github.check_runs) == 1, [r["history"] for r in fake_github.check_runs.values()]
    assert len(fake_github.reviews[(REPO, 7)]) == 1
    assert "may be retried" not in process.text()  # both were handled inside the job, without a 10 s defer
    assert leaked(process.text(), secrets_of(env, fake_github)) == []


async def test_a_re_run_adopts_the_check_run_an_earlier_attempt_created_but_could_not_record(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    # Redis went away between GitHub creating the check run and reviewbot storing its id (seen in the restart test).
    pull = open_pull(fake_github)
    tokens = InstallationTokens(str(settings.github_app_id), str(settings.github_private_key), fake_github.base_url)
    port = GitHubPort(InstallationCredentials(tokens, INSTALLATION), fake_github.base_url)
    orphan = await port.create_check_run(REPO, {"name": "reviewbot", "head_sha": pull["head"]["sha"],
                                                "external_id": "7", "status": "queued"})
    port.close()
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    job_id = keys.review_job_id(REPO, 7, pull["head"]["sha"])
    async with Redis.from_url(redis_url) as r:
        await r.set(f"arq:retry:{job_id}", 1)  # so arq runs it as its second try
    await run_worker_until_idle(settings, redis_url)
    assert list(fake_github.check_runs) == [orphan] and fake_github.check_runs[orphan]["status"] == "completed"
    assert len(fake_github.reviews[(REPO, 7)]) == 1
