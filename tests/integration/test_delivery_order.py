"""Whatever order GitHub delivers in, the PR's newest head is reviewed once; a reviewed commit is never paid twice."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx
import pytest
from redis import Redis

from reviewbot.jobs.commands import command_limits
from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import (
    HEAD_CALC,
    background_worker,
    bug_finding,
    comment,
    deliver,
    eventually,
    open_pull,
    payload,
    run_worker_until_idle,
)


def reviews(github: FakeGitHub) -> list[dict[str, Any]]:
    return github.reviews[(REPO, 7)]


def push(github: FakeGitHub, previous: dict[str, Any], text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A new head on the fake PR, and the `synchronize` delivery GitHub sends for it."""
    pull = github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC + text})
    return pull, payload("pull_request.synchronize", pull) | {"before": previous["head"]["sha"]}


def assert_only_the_head_reviewed(github: FakeGitHub, head: str) -> None:
    """One review, of the head, and one check run, on the head, completed; nothing on any older commit."""
    assert [r["commit_id"] for r in reviews(github)] == [head]
    assert [(c["head_sha"], c["status"]) for c in github.check_runs.values()] == [(head, "completed")]


@pytest.mark.parametrize("late", ["opened", "synchronize"])
async def test_a_late_delivery_for_an_older_head_does_not_strand_the_newest_push(
        late: str, web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    first = open_pull(fake_github)
    older, _ = push(fake_github, first, "# A\n")
    newest, sync_newest = push(fake_github, older, "# B\n")
    late_body = payload("pull_request.opened", older) if late == "opened" else \
        payload("pull_request.synchronize", older) | {"before": first["head"]["sha"]}
    fake_model.script_reply(findings_json([bug_finding()]))
    assert deliver(web, "pull_request", sync_newest).status_code == 202  # B's push arrives first...
    assert deliver(web, "pull_request", late_body).status_code == 202  # ...then A's, late
    await run_worker_until_idle(settings, redis_url)
    assert_only_the_head_reviewed(fake_github, newest["head"]["sha"])
    assert len(fake_model.review_requests()) == 1


async def test_a_review_command_racing_a_push_ends_with_the_newest_head_reviewed(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    old = open_pull(fake_github)
    # The command reads the PR while the head is still A; the answer reaches it after B was pushed and announced.
    fake_github.slow("GET", f"/repos/{REPO}/pulls/7", 1.5)
    one_job_at_a_time = dataclasses.replace(settings, max_jobs=1)  # B's job waits until the command is done
    async with background_worker(one_job_at_a_time, redis_url):
        assert deliver(web, "issue_comment", comment(fake_github, old, "@reviewbot-test review")).status_code == 202
        await eventually(lambda: any(c.path == f"/repos/{REPO}/pulls/7" for c in fake_github.requests),
                         what="the command to ask GitHub for the head")
        newest, sync_newest = push(fake_github, old, "# pushed while the command ran\n")
        assert deliver(web, "pull_request", sync_newest).status_code == 202
        with Redis.from_url(redis_url) as r:
            await eventually(lambda: r.zcard("arq:queue") == 0 and bool(fake_github.check_runs)
                             and all(c["status"] == "completed" for c in fake_github.check_runs.values()),
                             timeout=30, what="every job to end")
    assert_only_the_head_reviewed(fake_github, newest["head"]["sha"])


async def test_reopening_and_replaying_a_reviewed_head_costs_nothing_but_asking_reviews_again(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull = open_pull(fake_github)
    fake_model.script_reply(findings_json([bug_finding()]))
    deliver(web, "pull_request", payload("pull_request.opened", pull))
    await run_worker_until_idle(settings, redis_url)
    assert len(reviews(fake_github)) == 1 and len(fake_model.review_requests()) == 1
    paid = len(fake_model.requests)  # the review and its verification
    for _ in range(2):  # close and reopen, twice
        fake_github.set_state(REPO, 7, "closed")
        deliver(web, "pull_request", payload("pull_request.closed", pull))
        fake_github.set_state(REPO, 7, "open")
        deliver(web, "pull_request", payload("pull_request.opened", pull) | {"action": "reopened"})
        await run_worker_until_idle(settings, redis_url)
    for action in ("synchronize", "synchronize", "ready_for_review", "opened"):  # replayed under new delivery ids
        deliver(web, "pull_request", payload("pull_request.opened", pull) | {"action": action})
        await run_worker_until_idle(settings, redis_url)
    assert len(fake_model.requests) == paid and len(reviews(fake_github)) == 1
    [check] = fake_github.check_runs.values()
    assert check["status"] == "completed"

    # Someone with write access asks explicitly, then presses Re-run: each reviews the same commit again.
    deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test review"))
    await run_worker_until_idle(settings, redis_url)
    deliver(web, "check_run", payload("check_run.rerequested", pull))
    await run_worker_until_idle(settings, redis_url)
    assert len(reviews(fake_github)) == 3 and len(fake_model.review_requests()) == 3


async def test_review_commands_beyond_the_hourly_limit_get_one_polite_answer(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull = open_pull(fake_github)
    for _ in range(command_limits.PER_PR + 3):
        deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test review"))
    await run_worker_until_idle(settings, redis_url)
    said = [c["body"] for c in fake_github.issue_comments[(REPO, 7)] if c["user"]["login"].endswith("[bot]")]
    [limit] = said
    assert f"{command_limits.PER_PR} review requests this hour" in limit and "please ask again after" in limit
    assert len(reviews(fake_github)) == 1  # the commands that were taken asked for the same, already queued, review
