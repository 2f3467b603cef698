"""Dismissals end to end, through the webhook and a real worker against the fake GitHub: only a command dismisses,
who may decide for the whole repository, what every later review says about it, `forget`, and old markers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from reviewbot.queue import functions
from reviewbot.queue.enqueue import store_job
from reviewbot.queue.worker import redis_settings
from reviewbot.settings import Settings
from reviewbot.state.learnings_store import Learnings, Stored
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json, thread_question
from tests.gfm import assert_safe_for_github
from tests.helpers import BASE_CALC, HEAD_CALC, bug_finding, comment, deliver, open_pull, payload, run_worker_until_idle
from tests.integration.test_conversations import replies, reply_event

SECURITY = bug_finding(category="security", cwe="CWE-369", title="Division by a caller-controlled count",
                       suggestion=None)


async def learnings(redis_url: str) -> list[Stored]:
    client = Redis.from_url(redis_url)
    try:
        return await Learnings(client).of(REPO)
    finally:
        await client.aclose()


async def review(web: httpx.Client, settings: Settings, redis_url: str, github: FakeGitHub, pull: dict[str, Any],
                 event: str = "pull_request.opened") -> dict[str, Any]:
    """The review the worker posts for this delivery."""
    assert deliver(web, "pull_request", payload(event, pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    return dict(github.reviews[(REPO, pull["number"])][-1])


async def dismissed(web: httpx.Client, settings: Settings, redis_url: str, github: FakeGitHub,
                    model: FakeModel, finding: dict[str, Any], text: str, login: str) -> tuple[dict[str, Any], str]:
    """PR 7 reviewed with `finding`, then `login` replies `text` under it; returns (PR 7, the App's answer)."""
    model.default = answering(findings_json([finding]))
    pull = open_pull(github)
    await review(web, settings, redis_url, github, pull)
    [root] = github.review_comments[(REPO, 7)]
    event = reply_event(github, pull, root, text, login=login)
    assert deliver(web, "pull_request_review_comment", event).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    [answer] = replies(github, root, github.bot_login)
    assert_safe_for_github(answer["body"], "github.com", REPO)
    return pull, answer["body"]


async def test_a_command_dismisses_every_later_review_lists_it_and_forget_undoes_it(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull, answer = await dismissed(web, settings, redis_url, fake_github, fake_model, bug_finding(),
                                   "@reviewbot-test won't fix: callers never pass an empty list", "maintainer-mo")
    assert "in every later review of this repository" in answer and "`@reviewbot-test forget`" in answer
    assert not any(thread_question(r.json) for r in fake_model.requests)  # a command costs no model request
    assert len(fake_github.resolved_threads) == 1
    [stored] = await learnings(redis_url)
    learning = stored.learning
    assert (learning.title, learning.rule) == ("total() now divides by the item count",
                                               "total now divides by the item count")  # not the "Major" badge
    assert (learning.severity, learning.reason, learning.by, learning.repository) == (
        "major", "callers never pass an empty list", "maintainer-mo", True)
    assert learning.lines == 1 and learning.category == "bug"  # what a later review looks for in the file

    # The next push adds a line above: the model reports the same finding, reworded, one line lower.
    moved = {"app/calc.py": "# totals\n" + HEAD_CALC}
    fake_model.default = answering(findings_json([bug_finding(line=6, title="total() now divides by the item count",
                                                              body="Average.")]))
    second = await review(web, settings, redis_url, fake_github, fake_github.update_head(REPO, 7, moved),
                          "pull_request.synchronize")
    assert second["comments"] == []
    body = second["body"]
    assert "1 finding(s) were held back by remembered dismissals" in body
    assert "#### Held back by remembered dismissals" in body and "dismissed by `maintainer-mo`" in body
    assert "callers never pass an empty list" in body and "`@reviewbot-test forget`" in body
    assert f"`reviewbot learnings forget {REPO} {stored.key}`" in body
    assert_safe_for_github(body, "github.com", REPO)

    [root] = [c for c in fake_github.review_comments[(REPO, 7)] if "in_reply_to_id" not in c]
    event = reply_event(fake_github, pull, root, "@reviewbot-test forget")
    assert deliver(web, "pull_request_review_comment", event).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    assert "Forgotten" in replies(fake_github, root, fake_github.bot_login)[-1]["body"]
    assert await learnings(redis_url) == []
    assert deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test full review")
                   ).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    third = fake_github.reviews[(REPO, 7)][-1]
    assert "held back" not in third["body"] and [c["line"] for c in third["comments"]] == [6]


@pytest.mark.parametrize(("login", "role", "finding", "repository"), [
    ("octocat", "write", bug_finding(), False),  # the pull request's own author: that PR only
    ("maintainer-mo", "write", bug_finding(), True),  # another person with write access: the repository
    ("maintainer-mo", "write", SECURITY, False),  # a security finding needs maintain or admin
    ("lead-lu", "maintain", SECURITY, True),
], ids=["author", "other-writer", "writer-on-security", "maintainer-on-security"])
async def test_who_dismisses_decides_where_the_dismissal_holds(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel,
        login: str, role: str, finding: dict[str, Any], repository: bool) -> None:
    fake_github.permissions[login] = role
    _, answer = await dismissed(web, settings, redis_url, fake_github, fake_model, finding,
                                "@reviewbot-test false positive: guarded by the caller", login)
    [stored] = await learnings(redis_url)
    assert stored.learning.repository is repository and stored.learning.by == login
    assert ("every later review of this repository" in answer) is repository
    if not repository:
        assert "on this pull request only" in answer
        assert ("maintainer or an admin" in answer) is (finding is SECURITY)

    # Another pull request with the same code: the finding is held back only by a repository-wide learning.
    other = fake_github.add_pull(REPO, 8, base_files={"app/calc.py": BASE_CALC},
                                 head_files={"app/calc.py": HEAD_CALC}, title="Same code elsewhere")
    posted = await review(web, settings, redis_url, fake_github, other)
    assert (posted["comments"] == []) is repository
    if repository and finding is SECURITY:
        assert "#### Dismissed security findings" in posted["body"] and "dismissed by `lead-lu`" in posted["body"]


async def test_a_security_review_lists_a_dismissed_security_finding_with_who_and_why(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull, _ = await dismissed(web, settings, redis_url, fake_github, fake_model, SECURITY,
                              "@reviewbot-test dismiss: the count is validated in the view", "maintainer-mo")
    assert deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test security-review")
                   ).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    security = fake_github.reviews[(REPO, 7)][-1]
    assert security["comments"] == []
    section = security["body"].split("#### Dismissed security findings", 1)[1]
    assert "Division by a caller-controlled count" in section and "(CWE-369)" in section
    assert "dismissed by `maintainer-mo`" in section and "the count is validated in the view" in section
    check = next(r for r in fake_github.check_runs.values() if "Dismissed security findings" in
                 str((r.get("output") or {}).get("summary")))
    assert_safe_for_github(check["output"]["summary"], "github.com", REPO)


async def test_free_text_never_dismisses_and_a_question_is_answered(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = answering(findings_json([bug_finding()]))
    pull = open_pull(fake_github)
    await review(web, settings, redis_url, fake_github, pull)
    [root] = fake_github.review_comments[(REPO, 7)]
    for text in ("This is NOT a false positive, please fix it.", "Intended.", "won't fix"):
        assert deliver(web, "pull_request_review_comment", reply_event(fake_github, pull, root, text)
                       ).json()["status"] == "ignored"
    question = reply_event(fake_github, pull, root, "@reviewbot-test is this a false positive?")
    assert deliver(web, "pull_request_review_comment", question).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    [answer] = replies(fake_github, root, fake_github.bot_login)
    assert "division raises" in answer["body"]  # the model's answer, not an acknowledgement
    assert await learnings(redis_url) == [] and not fake_github.resolved_threads


async def test_a_command_under_a_marker_this_server_cannot_verify_gets_a_reply(
        web: httpx.Client, env: dict[str, str], settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = answering(findings_json([bug_finding()]))
    pull = open_pull(fake_github)
    await review(web, settings, redis_url, fake_github, pull)
    [root] = fake_github.review_comments[(REPO, 7)]
    rotated = Settings.from_mapping({**env, "REVIEWBOT_MARKER_SECRET": "a-new-marker-secret-" + "x" * 20})
    event = reply_event(fake_github, pull, root, "@reviewbot-test dismiss")
    assert deliver(web, "pull_request_review_comment", event).json()["status"] == "queued"
    await run_worker_until_idle(rotated, redis_url)
    [answer] = replies(fake_github, root, fake_github.bot_login)
    assert "could not match this thread" in answer["body"] and "nothing was dismissed" in answer["body"]
    assert_safe_for_github(answer["body"], "github.com", REPO)
    assert await learnings(redis_url) == [] and not fake_github.resolved_threads


async def test_a_job_queued_by_the_old_free_text_classifier_dismisses_nothing(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    """Jobs queued before an upgrade carried the classifier's verdict ("won't fix", "intended") where the command
    now goes: they are read as no command, so a reply without a mention is ignored."""
    from arq import create_pool

    fake_model.default = answering(findings_json([bug_finding()]))
    pull = open_pull(fake_github)
    await review(web, settings, redis_url, fake_github, pull)
    [root] = fake_github.review_comments[(REPO, 7)]
    reply = fake_github.add_review_reply(REPO, 7, root["id"], "This is NOT a false positive. Won't fix? No!")
    fake_github.permissions["maintainer-mo"] = "write"
    pool = await create_pool(redis_settings(redis_url), job_serializer=functions.serialize,
                             job_deserializer=functions.deserialize)
    try:
        for old in ("won't fix", "false positive", "intended", "dismissed"):
            await store_job(pool, functions.CONVERSATION_FUNCTION, (INSTALLATION, REPO, 7, reply["id"], root["id"],
                                                               "maintainer-mo", False, False, old),
                            {}, f"old-{old}")
        await run_worker_until_idle(settings, redis_url)
    finally:
        await pool.aclose()
    asked = [c for c in fake_github.requests if c.path.endswith("/collaborators/maintainer-mo/permission")]
    assert len(asked) == 4  # each job ran past the permission gate, then found no command
    assert replies(fake_github, root, fake_github.bot_login) == []
    assert await learnings(redis_url) == [] and not fake_github.resolved_threads
