"""A fix commit pushed to a pull request has the repository's CI as its test bench: when the suite on it completes,
the result is a reply in the thread where the fix was asked, told once; reviewbot's own check run is not counted,
and a suite on any other commit is not read at all."""

from __future__ import annotations

import httpx

from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.github_repos import pull_json
from tests.fakes.model import FakeModel
from tests.helpers import deliver, open_pull, payload, run_worker_until_idle
from tests.integration.test_conversations import replies
from tests.integration.test_fixes import asked_in_thread, pushing, reviewed, reviewing

__all__ = ["pushing"]  # the fixture, for this module's tests


async def test_a_pushed_fixs_ci_result_is_told_in_its_thread_once(
        web: httpx.Client, pushing: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = reviewing()
    pull = open_pull(fake_github)
    root = await reviewed(web, pushing, redis_url, fake_github, pull)
    await asked_in_thread(web, pushing, redis_url, fake_github, pull, root)
    [(_, sha)] = fake_github.git_commits

    # The fix commit is the pull request's new head: reviewbot reviews it, its own check run lands on the commit.
    pr = fake_github.pull(REPO, 7)
    assert deliver(web, "pull_request", payload("pull_request.synchronize", pull_json(fake_github, pr))
                   ).status_code == 202
    await run_worker_until_idle(pushing, redis_url)
    assert [r["name"] for r in fake_github.check_runs.values() if r["head_sha"] == sha] == ["reviewbot"]

    other = fake_github.complete_check_suite(REPO, pull["head"]["sha"], [("tests", "failure")])
    assert deliver(web, "check_suite", other).json() == {"status": "ignored", "reason": "not a fix commit"}

    suite = fake_github.complete_check_suite(REPO, sha, [("tests (3.11)", "success"), ("tests (3.12)", "success")])
    assert deliver(web, "check_suite", suite).json()["status"] == "queued"
    await run_worker_until_idle(pushing, redis_url)
    told = [r["body"] for r in replies(fake_github, root, fake_github.bot_login) if "CI " in r["body"]]
    # reviewbot's own check run on the fix commit is not one of the checks.
    assert told == [f"The fix at {sha[:7]}: CI passed: 2 checks."]

    assert deliver(web, "check_suite", suite).status_code == 202  # a redelivery, or a second suite: told once
    await run_worker_until_idle(pushing, redis_url)
    assert len([r for r in replies(fake_github, root, fake_github.bot_login) if "CI " in r["body"]]) == 1
