"""Review threads end to end: questions answered in the thread, the permission gate, limits (dismissals:
test_dismissals.py)."""

from __future__ import annotations

import time
from typing import Any

import httpx
from redis.asyncio import Redis

from reviewbot.observe.ledger import Ledger
from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json, thread_question
from tests.helpers import bug_finding, deliver, open_pull, payload, run_worker_until_idle


async def reviewed(web: httpx.Client, settings: Settings, redis_url: str, github: FakeGitHub,
                   model: FakeModel) -> tuple[dict[str, Any], dict[str, Any]]:
    """A reviewed PR with one finding; returns (pull, the finding's review comment)."""
    pull = open_pull(github)
    model.script_reply(findings_json([bug_finding()]))
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    [root] = github.review_comments[(REPO, 7)]
    return pull, root


def reply_event(github: FakeGitHub, pull: dict[str, Any], root: dict[str, Any], body: str, *,
                login: str = "maintainer-mo", association: str = "MEMBER") -> dict[str, Any]:
    github.permissions.setdefault(login, {"OWNER": "admin", "MEMBER": "write", "COLLABORATOR": "write"}.get(
        association, "read"))  # what the association usually means, unless the test set it
    stored = github.add_review_reply(REPO, pull["number"], root["id"], body, author=login)
    data = payload("pull_request_review_comment.created")
    data["pull_request"] |= {"number": pull["number"], "head": {"ref": "feature", "sha": pull["head"]["sha"]}}
    data["comment"] |= {"id": stored["id"], "in_reply_to_id": root["id"], "body": body,
                        "author_association": association, "user": {"login": login, "id": 77, "type": "User"}}
    return data


def replies(github: FakeGitHub, root: dict[str, Any], by: str) -> list[dict[str, Any]]:
    return [c for c in github.review_comments[(REPO, 7)]
            if c.get("in_reply_to_id") == root["id"] and c["user"]["login"] == by]


async def test_a_collaborators_question_is_answered_in_the_thread_on_the_reviews_cached_prefix(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull, root = await reviewed(web, settings, redis_url, fake_github, fake_model)
    [review_request] = fake_model.review_requests()
    event = reply_event(fake_github, pull, root, "@reviewbot-test why is this a bug? callers check first.")
    started = time.monotonic()
    response = deliver(web, "pull_request_review_comment", event)
    assert response.status_code == 202 and response.json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    assert time.monotonic() - started < 60

    [answer] = replies(fake_github, root, fake_github.bot_login)
    assert "division raises" in answer["body"]
    [asked] = [r for r in fake_model.requests if thread_question(r.json) is not None]
    question = thread_question(asked.json)
    assert question is not None and "callers check first" in question and "total() now divides" in question
    assert "return result / len(items)" in question  # the code at the PR's head
    assert asked.headers["x-session-affinity"] == review_request.headers["x-session-affinity"]
    assert asked.json["messages"][:2] == review_request.json["messages"]  # the review's prompt, byte for byte
    usage = fake_model.served[-1]["usage"]
    assert usage["prompt_tokens_details"]["cached_tokens"] > usage["prompt_tokens"] / 2
    client = Redis.from_url(redis_url)
    entries = [e async for e in Ledger(client, 30).entries()]
    await client.aclose()
    [conversation] = [e for e in entries if e.trigger == "conversation"]
    assert conversation.outcome == "answered" and conversation.requests == 1 and conversation.cost_usd > 0


async def test_read_only_users_and_the_bot_itself_cost_no_model_request(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull, root = await reviewed(web, settings, redis_url, fake_github, fake_model)
    before = len(fake_model.requests)
    outsider = reply_event(fake_github, pull, root, "@reviewbot-test explain this please", login="drive-by",
                           association="NONE")
    assert deliver(web, "pull_request_review_comment", outsider).status_code == 202
    fake_github.permissions["reading-member"] = "read"  # an organisation member with read access only
    member = reply_event(fake_github, pull, root, "@reviewbot-test and this?", login="reading-member")
    assert deliver(web, "pull_request_review_comment", member).status_code == 202
    own = reply_event(fake_github, pull, root, "@reviewbot-test this looks fixed", login=fake_github.bot_login)
    own["comment"]["user"] = {"login": fake_github.bot_login, "id": 5, "type": "Bot"}
    ignored = deliver(web, "pull_request_review_comment", own)
    assert ignored.status_code == 202 and ignored.json()["status"] == "ignored"
    await run_worker_until_idle(settings, redis_url)
    assert len(fake_model.requests) == before
    assert [c["id"] for c in replies(fake_github, root, fake_github.bot_login)] == [own["comment"]["id"]]
    assert any(c.path.endswith("/collaborators/drive-by/permission") for c in fake_github.requests)
    assert any(c.path.endswith("/collaborators/reading-member/permission") for c in fake_github.requests)


async def test_the_per_pr_limit_stops_questions_before_the_model(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = Settings.from_mapping({**env, "REVIEWBOT_CONVERSATION_PR_LIMIT": "1"})
    pull, root = await reviewed(web, settings, redis_url, fake_github, fake_model)
    for text in ("@reviewbot-test why?", "@reviewbot-test and why again?"):
        assert deliver(web, "pull_request_review_comment", reply_event(fake_github, pull, root, text)).status_code \
            == 202
        await run_worker_until_idle(settings, redis_url)
    assert len([r for r in fake_model.requests if thread_question(r.json) is not None]) == 1
    first, second = replies(fake_github, root, fake_github.bot_login)
    assert "division raises" in first["body"] and "as many questions" in second["body"]
