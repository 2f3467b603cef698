"""Pull-request fixes that must not cost twice, nor be refused for good: GitHub refusing the push (a protected
branch) gives suggestions naming its reason, remembered; `fix all` on the App's own fix commit fixes nothing
again; a fix declined for the review's token budget is made when asked again with room."""

from __future__ import annotations

import dataclasses

import httpx

from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.github_repos import pull_json
from tests.fakes.model import FakeModel, fix_json
from tests.gfm import assert_everything_posted_is_safe
from tests.helpers import comment, deliver, open_pull, run_worker_until_idle
from tests.integration.test_fixes import GUARDED, asked_in_thread, ledger_fixes, pushing, reviewed, reviewing

__all__ = ["pushing"]  # the fixture, used by name
PROTECTED = "Protected branch update failed for refs/heads/feature: @acme/admins must review [it](https://x.test)"


async def bot_said(github: FakeGitHub) -> list[str]:
    return [str(c["body"]) for c in github.issue_comments[(REPO, 7)] if c["user"]["login"] == github.bot_login]


async def test_a_push_github_refuses_is_suggested_with_its_reason_and_asking_again_costs_nothing(
        web: httpx.Client, pushing: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = reviewing()
    pull = open_pull(fake_github)
    root = await reviewed(web, pushing, redis_url, fake_github, pull)
    fake_github.inject("PATCH", f"/repos/{REPO}/git/refs/heads/.*", 422, {"message": PROTECTED}, times=5)
    said = await asked_in_thread(web, pushing, redis_url, fake_github, pull, root)
    assert "GitHub refused the push (422" in said and "Protected branch update failed" in said
    assert "@acme/admins" not in said and "](https://x.test)" not in said  # its words, not a ping or a link
    assert "checked but not pushed" in said
    assert "```suggestion\n" + GUARDED in fake_github.reviews[(REPO, 7)][-1]["comments"][0]["body"]
    assert await ledger_fixes(redis_url) == [("fix", "suggested")]
    paid = len(fake_model.requests)
    again = await asked_in_thread(web, pushing, redis_url, fake_github, pull, root)
    assert "was suggested above" in again and len(fake_model.requests) == paid
    assert_everything_posted_is_safe(fake_github, REPO, 7)


async def test_fix_all_on_the_apps_own_fix_commit_fixes_nothing_again(
        web: httpx.Client, pushing: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    # A fix above the commented line: the finding's thread is not outdated by it, so it is still open on the fix.
    fake_model.default = reviewing(fix_json([("app/calc.py", "    result = 0\n", "    result = 0.0\n")]))
    pull = open_pull(fake_github)
    root = await reviewed(web, pushing, redis_url, fake_github, pull)
    await asked_in_thread(web, pushing, redis_url, fake_github, pull, root)
    [(_, sha)] = fake_github.git_commits
    paid = len(fake_model.fix_requests())
    fixed = pull_json(fake_github, fake_github.pull(REPO, 7))  # its head is the fix; its thread is still open
    assert fixed["head"]["sha"] == sha
    assert deliver(web, "issue_comment", comment(fake_github, fixed, "@reviewbot-test fix")).json()["status"] \
        == "queued"
    await run_worker_until_idle(pushing, redis_url)
    assert len(fake_model.fix_requests()) == paid and len(fake_github.git_commits) == 1
    assert "nothing more was done" in (await bot_said(fake_github))[-1]


async def test_a_fix_declined_for_the_token_budget_is_made_when_asked_again_with_room(
        web: httpx.Client, pushing: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = reviewing()
    pull = open_pull(fake_github)
    await reviewed(web, pushing, redis_url, fake_github, pull)
    tight = dataclasses.replace(pushing, review_token_budget=500)
    deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test fix"))
    await run_worker_until_idle(tight, redis_url)
    assert fake_github.git_commits == [] and "budget" in (await bot_said(fake_github))[-1]
    assert deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test fix"),
                   ).json()["status"] == "queued"
    await run_worker_until_idle(pushing, redis_url)
    [(_, sha)] = fake_github.git_commits
    assert (await bot_said(fake_github))[-1].startswith(f"Pushed a fix in {sha[:7]}")
