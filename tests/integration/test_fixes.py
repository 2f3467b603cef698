"""The fix loop end to end, through the webhook and a real worker against the fake GitHub and the fake model: a
thread's `fix` pushes one commit the next review finds fixed, a fork gets suggestions, the Fix button, a person's
concurrent push re-plans the fix, asking again costs nothing, and a fix that fails a check is declined, said."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from reviewbot.observe.ledger import Ledger
from reviewbot.outcomes.classify import fix_trailers
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.github_repos import pull_json
from tests.fakes.model import FakeModel, answering, findings_json, fix_json, fix_turn
from tests.gfm import assert_everything_posted_is_safe
from tests.helpers import HEAD_CALC, bug_finding, comment, deliver, open_pull, payload, run_worker_until_idle
from tests.integration.test_conversations import replies, reply_event

BUG = "    return result / len(items)\n"
GUARDED = "    return result / len(items) if items else 0.0\n"
GOOD_FIX = fix_json([("app/calc.py", BUG, GUARDED)])
CAPACITY = {"result": None, "success": False, "errors": [{"code": 3040, "message": "Capacity temporarily exceeded"}]}


def reviewing(fix: str = GOOD_FIX, fixed: bool = True) -> Callable[[dict[str, Any]], str]:
    """The model: the bug is found while the unguarded line is in what it reads, the fix is `fix`."""
    def review(request: dict[str, Any]) -> str:
        shown = "\n".join(str(m.get("content")) for m in request["messages"] if isinstance(m, dict))
        return findings_json([bug_finding(suggestion=None)] if BUG in shown else [])
    return answering(review, fix=fix, fixed=fixed)


@pytest.fixture
def pushing(settings: Settings, fake_github: FakeGitHub) -> Settings:
    """Fixes on (push), and the installation granted `contents: write`."""
    fake_github.installations[INSTALLATION].permissions["contents"] = "write"
    return dataclasses.replace(settings, fixes="push")


async def reviewed(web: httpx.Client, settings: Settings, redis_url: str, github: FakeGitHub,
                   pull: dict[str, Any]) -> dict[str, Any]:
    """PR 7 reviewed once; returns the finding's review comment (the thread's first comment)."""
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    [root] = github.review_comments[(REPO, 7)]
    return root


async def asked_in_thread(web: httpx.Client, settings: Settings, redis_url: str, github: FakeGitHub,
                          pull: dict[str, Any], root: dict[str, Any], login: str = "maintainer-mo") -> str:
    event = reply_event(github, pull, root, "@reviewbot-test fix", login=login)
    assert deliver(web, "pull_request_review_comment", event).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    return str(replies(github, root, github.bot_login)[-1]["body"])


async def ledger_fixes(redis_url: str) -> list[tuple[str, str]]:
    client = Redis.from_url(redis_url)
    try:
        return [(e.kind, e.outcome) for e in await Ledger(client, 30).recent(50) if e.kind == "fix"]
    finally:
        await client.aclose()


async def test_a_threads_fix_is_one_commit_the_next_review_finds_fixed_and_asking_again_costs_nothing(
        web: httpx.Client, pushing: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = reviewing()
    pull = open_pull(fake_github)
    fake_github.executables.add((REPO, "app/calc.py"))  # the commit keeps the file's mode
    root = await reviewed(web, pushing, redis_url, fake_github, pull)
    said = await asked_in_thread(web, pushing, redis_url, fake_github, pull, root)

    [(repo, sha)] = fake_github.git_commits
    assert (REPO, "app/calc.py") in fake_github.executables
    pr = fake_github.pull(REPO, 7)
    assert repo == REPO and pr.head_sha == sha and fake_github.parents[(REPO, sha)] == [pull["head"]["sha"]]
    assert fake_github.commits[(REPO, sha)]["app/calc.py"] == HEAD_CALC.replace(BUG, GUARDED)
    message = fake_github.commit_messages[(REPO, sha)]
    assert message.startswith("Fix: total() now divides by the item count\n") and len(fix_trailers([message])) == 1
    assert said.startswith(f"Pushed a fix in {sha[:7]}")
    [fix_request] = fake_model.fix_requests()
    review_request = fake_model.review_requests()[0]
    assert fix_request.headers["x-session-affinity"] == review_request.headers["x-session-affinity"]
    # The fix turn follows the review's own prompt: the same system message and the same first user message.
    assert fix_request.json["messages"][:2] == review_request.json["messages"][:2]
    served = fake_model.served[fake_model.requests.index(fix_request)]["usage"]  # one request at a time here
    assert served["prompt_tokens_details"]["cached_tokens"] > served["prompt_tokens"] // 2  # the prefix is cached
    assert await ledger_fixes(redis_url) == [("fix", "pushed")]

    # The push is a new head: its review finds the bug gone and resolves the finding's thread.
    assert deliver(web, "pull_request", payload("pull_request.synchronize", pull_json(fake_github, pr))
                   ).status_code == 202
    await run_worker_until_idle(pushing, redis_url)
    assert fake_github.reviews[(REPO, 7)][-1]["comments"] == []
    assert len(fake_github.resolved_threads) == 1

    requests = len(fake_model.requests)
    again = await asked_in_thread(web, pushing, redis_url, fake_github, pull, root)
    assert "nothing more was done" in again and f"was pushed in {sha[:7]}" in again
    assert len(fake_model.requests) == requests and len(fake_github.git_commits) == 1
    assert_everything_posted_is_safe(fake_github, REPO, 7)


async def test_a_fork_gets_suggestions_and_never_a_push(
        web: httpx.Client, pushing: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = reviewing()
    pull = open_pull(fake_github, head_repo="contributor/widgets")
    root = await reviewed(web, pushing, redis_url, fake_github, pull)
    said = await asked_in_thread(web, pushing, redis_url, fake_github, pull, root, login="octocat")  # the author
    assert fake_github.git_commits == [] and "checked but not pushed" in said
    [suggested] = fake_github.reviews[(REPO, 7)][-1]["comments"]
    assert (suggested["path"], suggested["line"]) == ("app/calc.py", 5)
    assert "```suggestion\n" + GUARDED in suggested["body"]
    assert await ledger_fixes(redis_url) == [("fix", "suggested")]
    assert_everything_posted_is_safe(fake_github, REPO, 7)


async def test_the_fix_button_fixes_the_open_findings(
        web: httpx.Client, pushing: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = reviewing()
    pull = open_pull(fake_github)
    await reviewed(web, pushing, redis_url, fake_github, pull)
    [run] = fake_github.check_runs.values()
    assert [a["identifier"] for a in run["actions"]] == ["rereview", "fix"]
    assert all(len(a["label"]) <= 20 and len(a["description"]) <= 40 for a in run["actions"])
    fake_github.permissions["maintainer-mo"] = "write"  # who pressed it (the payload's sender)
    event = payload("check_run.requested_action", pull)
    event["requested_action"] = {"identifier": "fix"}
    assert deliver(web, "check_run", event).json()["status"] == "queued"
    assert deliver(web, "check_run", event).json()["status"] in ("queued", "already queued")  # a second click
    await run_worker_until_idle(pushing, redis_url)
    [(_, sha)] = fake_github.git_commits
    assert len(fake_model.fix_requests()) == 1
    [said] = [c for c in fake_github.issue_comments[(REPO, 7)] if c["user"]["login"] == fake_github.bot_login]
    assert said["body"].startswith(f"Pushed a fix in {sha[:7]}")


async def test_a_push_during_the_fix_wins_and_the_fix_is_planned_again_on_it(
        web: httpx.Client, pushing: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    theirs = {"app/calc.py": HEAD_CALC + "\n\ndef mean(items):\n    return 0\n"}
    model = reviewing()
    pushed: list[str] = []

    def answer(request: dict[str, Any]) -> str:
        if fix_turn(request) == "verify-fix" and not pushed:  # a person pushes while the fix is checked
            pushed.append(fake_github.update_head(REPO, 7, theirs)["head"]["sha"])
        return model(request)

    fake_model.default = answer
    pull = open_pull(fake_github)
    root = await reviewed(web, pushing, redis_url, fake_github, pull)
    said = await asked_in_thread(web, pushing, redis_url, fake_github, pull, root)
    [(_, sha)] = fake_github.git_commits[-1:]
    assert len(fake_model.fix_requests()) == 2  # planned again on the new head
    assert fake_github.parents[(REPO, sha)] == pushed and fake_github.pull(REPO, 7).head_sha == sha
    assert fake_github.commits[(REPO, sha)]["app/calc.py"] == theirs["app/calc.py"].replace(BUG, GUARDED)
    assert said.startswith(f"Pushed a fix in {sha[:7]}")


@pytest.mark.parametrize(("fix", "fixed", "reason", "words"), [
    (fix_json([("app/calc.py", BUG, "    return (result / len(items)\n")]), True, "does-not-parse",
     "a changed file no longer parses"),
    (fix_json([("app/other.py", "x", "y")]), True, "does-not-apply", "is not a file of the head"),
    (fix_json([("app/calc.py", "len(items)", "0")]), True, "does-not-apply", "occurs 2 times"),
    (GOOD_FIX, False, "not-fixed", "the verifier did not confirm"),
], ids=["syntax", "missing-file", "twice", "verifier"])
async def test_a_fix_that_fails_a_check_is_declined_with_the_reason(
        web: httpx.Client, pushing: Settings, redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel,
        fix: str, fixed: bool, reason: str, words: str | None) -> None:
    fake_model.default = reviewing(fix, fixed)
    pull = open_pull(fake_github)
    await reviewed(web, pushing, redis_url, fake_github, pull)
    assert deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test fix")).json()["status"] \
        == "queued"
    await run_worker_until_idle(pushing, redis_url)
    assert fake_github.git_commits == []
    said = [c["body"] for c in fake_github.issue_comments[(REPO, 7)] if c["user"]["login"] == fake_github.bot_login]
    assert said[-1].startswith("No fix for **total() now divides by the item count**") and \
        "Nothing was pushed or suggested" in said[-1]
    if words:
        assert words in said[-1]
    assert (await ledger_fixes(redis_url))[0][1].startswith("declined:")
    assert_everything_posted_is_safe(fake_github, REPO, 7)


async def test_fixes_are_off_unless_the_operator_turns_them_on(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = reviewing()
    pull = open_pull(fake_github)
    await reviewed(web, settings, redis_url, fake_github, pull)
    [run] = fake_github.check_runs.values()
    assert [a["identifier"] for a in run["actions"]] == ["rereview"]
    deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test fix"))
    await run_worker_until_idle(settings, redis_url)
    said = [c["body"] for c in fake_github.issue_comments[(REPO, 7)] if c["user"]["login"] == fake_github.bot_login]
    assert "REVIEWBOT_FIXES=suggest" in said[-1] and fake_model.fix_requests() == []
    assert json.dumps(said)  # posted text only


async def test_the_port_makes_a_branch_and_a_commit_on_it_as_a_fix_pull_request_would(
        settings: Settings, fake_github: FakeGitHub) -> None:
    """What an audit's fix pull request builds on: a `reviewbot/fix/…` branch, then one commit on it."""
    from reviewbot.app.limits import RateLimits
    from reviewbot.app.port import GitHubPort
    from reviewbot.app.port.gitdata import BranchMoved

    fake_github.add_installation(INSTALLATION, [REPO], permissions={"contents": "write", "metadata": "read"})
    main = fake_github.set_branch(REPO, "main", {"app/calc.py": HEAD_CALC})
    port = GitHubPort(fake_github.workflow_token(INSTALLATION), settings.github_api_url,
                      limits=RateLimits(write_interval=settings.write_interval))
    try:
        await port.create_branch(REPO, "reviewbot/fix/calc", main)
        sha = await port.commit_files(REPO, "reviewbot/fix/calc", main, {"app/calc.py": "x = 1\n"}, "Fix: calc\n")
        assert await port.branch_head(REPO, "reviewbot/fix/calc") == sha
        assert fake_github.commits[(REPO, sha)] == {"app/calc.py": "x = 1\n"}
        with pytest.raises(BranchMoved):  # made on `main` again, but the branch is at `sha` now
            await port.commit_files(REPO, "reviewbot/fix/calc", main, {"app/calc.py": "x = 2\n"}, "Fix: again\n")
    finally:
        port.close()


async def test_a_fix_waiting_in_the_providers_queue_is_paid_once(
        web: httpx.Client, pushing: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = reviewing()
    pull = open_pull(fake_github)
    root = await reviewed(web, pushing, redis_url, fake_github, pull)
    for _ in range(3):  # the fix request's synchronous attempts are out of capacity: it goes to the queue
        fake_model.script_error(429, CAPACITY)
    fake_model.script_reply(GOOD_FIX)  # what the queued request answers
    fake_model.async_polls_before_done = 1  # still running at the first poll: the job is deferred, then polls again
    said = await asked_in_thread(web, pushing, redis_url, fake_github, pull, root)
    submissions = [c for c in fake_model.async_calls if "requests" in c]
    polls = [c for c in fake_model.async_calls if "request_id" in c]
    assert len(submissions) == 1 and len(polls) >= 1 and len(fake_github.git_commits) == 1
    assert len(fake_model.fix_requests()) == 3  # the three refused attempts; the answer came from the queue
    assert said.startswith("Pushed a fix in")
