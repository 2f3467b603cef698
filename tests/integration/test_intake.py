"""Every trigger becomes exactly one review of the newest code; nothing lost or doubled."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import httpx
from redis import Redis

from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import (
    BASE_CALC,
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
from tests.integration.test_webhooks import queued


async def drain(settings: Settings, redis_url: str) -> None:
    await run_worker_until_idle(settings, redis_url)


def reviews(github: FakeGitHub, number: int = 7) -> list[dict[str, Any]]:
    return github.reviews[(REPO, number)]


def replies(github: FakeGitHub, number: int = 7) -> list[str]:
    """What the bot itself said in the conversation."""
    return [c["body"] for c in github.issue_comments[(REPO, number)] if c["user"]["login"].endswith("[bot]")]


async def test_a_redelivered_delivery_is_a_duplicate(web: httpx.Client, fake_github: FakeGitHub,
                                                     redis_url: str) -> None:
    body = payload("pull_request.opened", open_pull(fake_github))
    first = deliver(web, "pull_request", body, delivery="guid-1")
    again = deliver(web, "pull_request", body, delivery="guid-1")
    assert first.status_code == 202 and again.status_code == 200 and again.json()["status"] == "duplicate"
    assert len(queued(redis_url)) == 1
    with Redis.from_url(redis_url) as r:
        assert r.ttl("reviewbot:delivery:guid-1") >= 3 * 86_400


async def test_five_pushes_in_a_burst_end_in_one_review_of_the_last_sha(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull = open_pull(fake_github)
    for i in range(5):
        pull = fake_github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC + f"# push {i}\n"})
        assert deliver(web, "pull_request", payload("pull_request.synchronize", pull)).status_code == 202
    await drain(settings, redis_url)
    [review] = reviews(fake_github)
    assert review["commit_id"] == pull["head"]["sha"]
    assert len(fake_model.requests) == 1
    # superseded jobs stop before touching GitHub: one check run, on the last SHA
    assert [c["head_sha"] for c in fake_github.check_runs.values()] == [pull["head"]["sha"]]


async def test_a_push_during_a_review_cancels_it_before_posting(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    old = open_pull(fake_github)
    fake_model.script_delay(1.0)
    fake_model.script_reply(findings_json([bug_finding()]))
    async with background_worker(settings, redis_url):
        deliver(web, "pull_request", payload("pull_request.opened", old))
        await eventually(lambda: len(fake_model.requests) == 1, what="the first model call")
        new = fake_github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC + "# fix\n"})
        deliver(web, "pull_request", payload("pull_request.synchronize", new))
        await eventually(lambda: len(reviews(fake_github)) == 1 and len(fake_github.check_runs) == 2
                         and all(c["status"] == "completed" for c in fake_github.check_runs.values()),
                         what="both check runs to complete")
    by_sha = {c["head_sha"]: c for c in fake_github.check_runs.values()}
    assert by_sha[old["head"]["sha"]]["conclusion"] == "cancelled"
    assert reviews(fake_github)[0]["commit_id"] == new["head"]["sha"]


async def test_closing_the_pr_cancels_pending_work(web: httpx.Client, settings: Settings, redis_url: str,
                                                   fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    pull = open_pull(fake_github)
    deliver(web, "pull_request", payload("pull_request.opened", pull))
    fake_github.set_state(REPO, 7, "closed")
    closed = deliver(web, "pull_request", payload("pull_request.closed", pull))
    assert closed.json()["status"] == "queued"  # the outcomes job: nothing was posted, so it asks GitHub nothing
    calls = len(fake_github.requests)
    await drain(settings, redis_url)
    assert reviews(fake_github) == [] and fake_model.requests == [] and fake_github.check_runs == {}
    assert not any(c.path.endswith(("/commits", "/graphql")) for c in fake_github.requests[calls:])


async def test_a_member_comment_triggers_a_review_and_an_eyes_reaction(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub) -> None:
    pull = open_pull(fake_github)
    body = comment(fake_github, pull, "Could you take a look?\n\n@Reviewbot-Test review")
    assert deliver(web, "issue_comment", body).json()["status"] == "queued"
    await drain(settings, redis_url)
    assert [r["content"] for r in fake_github.reactions[body["comment"]["id"]]] == ["eyes"]
    assert len(reviews(fake_github)) == 1


async def test_outsiders_get_one_polite_reply_and_no_review(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull = open_pull(fake_github)
    for _ in range(2):
        deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test review", login="drive-by",
                                              association="CONTRIBUTOR"))
    await drain(settings, redis_url)
    assert reviews(fake_github) == [] and fake_model.requests == []
    [reply] = replies(fake_github)
    assert "write access" in reply and "@drive-by" not in reply


async def test_a_read_only_member_or_collaborator_is_asked_about_and_costs_nothing(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    # The association says nothing about access: an organisation member may hold read access only.
    fake_github.permissions |= {"reader-member": "read", "triage-collab": "triage"}
    pull = open_pull(fake_github)
    for login, association in (("reader-member", "MEMBER"), ("triage-collab", "COLLABORATOR")):
        body = comment(fake_github, pull, "@reviewbot-test full review", login=login, association=association)
        assert deliver(web, "issue_comment", body).json()["status"] == "queued"  # the worker decides
    await drain(settings, redis_url)
    assert reviews(fake_github) == [] and fake_model.requests == [] and fake_github.check_runs == {}
    told = replies(fake_github)  # each person is told once (the Action does the same)
    assert len(told) == 2 and all("write access" in reply for reply in told)


async def test_write_permission_checked_through_the_api_is_enough(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub) -> None:
    fake_github.permissions["outside-collab"] = "write"
    pull = open_pull(fake_github)
    deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test review", login="outside-collab",
                                          association="CONTRIBUTOR"))
    await drain(settings, redis_url)
    assert len(reviews(fake_github)) == 1


async def test_bots_never_trigger(web: httpx.Client, fake_github: FakeGitHub, redis_url: str) -> None:
    pull = open_pull(fake_github)
    for login, kind in (("reviewbot-test[bot]", "Bot"), ("dependabot[bot]", "Bot"), ("ci-robot[bot]", "User")):
        body = comment(fake_github, pull, "@reviewbot-test review", login=login, user_type=kind)
        answer = deliver(web, "issue_comment", body)
        assert answer.json()["status"] == "ignored"
    assert queued(redis_url) == []


async def test_comments_not_addressed_to_the_app_are_ignored(web: httpx.Client, fake_github: FakeGitHub,
                                                             redis_url: str) -> None:
    pull = open_pull(fake_github)
    for body in ("LGTM", "@someone-else review", "> @reviewbot-test review\nquoted", "`@reviewbot-test review`",
                 "Could you take a look? @reviewbot-test review"):  # a command is a paragraph of its own
        assert deliver(web, "issue_comment", comment(fake_github, pull, body)).json()["status"] == "ignored"
    assert queued(redis_url) == []


async def test_help_unknown_pause_and_resume(web: httpx.Client, settings: Settings, redis_url: str,
                                             fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    pull = open_pull(fake_github)
    deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test help"))
    deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test dance"))
    deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test pause"))
    await drain(settings, redis_url)
    said = replies(fake_github)  # the three commands ran concurrently: their replies come in any order
    assert len(said) == 3
    assert any(r.startswith("reviewbot commands") and "`@reviewbot-test full review`" in r for r in said)
    assert any(r.startswith("I did not understand") and "pause" in r for r in said)
    assert any(r.startswith("Automatic reviews are paused") for r in said)
    pushed = fake_github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC + "# more\n"})
    deliver(web, "pull_request", payload("pull_request.synchronize", pushed))
    await drain(settings, redis_url)
    assert reviews(fake_github) == []  # paused: automatic reviews stop
    deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test resume"))
    await drain(settings, redis_url)
    pushed = fake_github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC + "# again\n"})
    deliver(web, "pull_request", payload("pull_request.synchronize", pushed))
    await drain(settings, redis_url)
    assert len(reviews(fake_github)) == 1


async def test_full_review_upgrades_a_queued_review(web: httpx.Client, settings: Settings, redis_url: str,
                                                    fake_github: FakeGitHub) -> None:
    pull = open_pull(fake_github)
    deliver(web, "pull_request", payload("pull_request.opened", pull))
    deliver(web, "check_run", payload("check_run.requested_action", pull))  # the Re-review button: full
    assert len(queued(redis_url)) == 1
    await drain(settings, redis_url)
    assert len(reviews(fake_github)) == 1
    with Redis.from_url(redis_url) as r:
        assert not r.keys("reviewbot:full:*")  # the upgrade was consumed by the review


async def test_rerun_buttons_review_the_same_sha_again(web: httpx.Client, settings: Settings, redis_url: str,
                                                       fake_github: FakeGitHub) -> None:
    pull = open_pull(fake_github)
    deliver(web, "pull_request", payload("pull_request.opened", pull))
    await drain(settings, redis_url)
    deliver(web, "check_run", payload("check_run.rerequested", pull))
    await drain(settings, redis_url)
    deliver(web, "check_suite", payload("check_suite.rerequested", pull))
    await drain(settings, redis_url)
    assert len(reviews(fake_github)) == 3
    assert {c["status"] for c in fake_github.check_runs.values()} == {"completed"}


async def test_drafts_wait_unless_the_base_branch_config_says_otherwise(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub) -> None:
    draft = open_pull(fake_github, draft=True)
    body = payload("pull_request.opened", draft)
    body["pull_request"]["draft"] = True
    deliver(web, "pull_request", body)
    await drain(settings, redis_url)
    assert reviews(fake_github) == [] and fake_github.check_runs == {}
    # A PR cannot opt itself in: the config is read from the base branch only.
    config = {".github/reviewbot.yml": "auto_review:\n  drafts: true\n"}
    sneaky = fake_github.add_pull(REPO, 8, base_files={"app/calc.py": BASE_CALC},
                                  head_files={"app/calc.py": HEAD_CALC, **config}, draft=True)
    deliver(web, "pull_request", payload("pull_request.opened", sneaky) | {"pull_request": sneaky})
    await drain(settings, redis_url)
    assert reviews(fake_github, 8) == []
    opted_in = fake_github.add_pull(REPO, 9, base_files={"app/calc.py": BASE_CALC, **config},
                                    head_files={"app/calc.py": HEAD_CALC, **config}, draft=True)
    deliver(web, "pull_request", payload("pull_request.opened", opted_in) | {"pull_request": opted_in})
    await drain(settings, redis_url)
    assert len(reviews(fake_github, 9)) == 1


async def test_an_update_branch_merge_does_not_trigger_a_full_review(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull = open_pull(fake_github)
    deliver(web, "pull_request", payload("pull_request.opened", pull))
    await drain(settings, redis_url)
    merged = fake_github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC},
                                     parents=[pull["head"]["sha"], pull["base"]["sha"]])
    body = payload("pull_request.synchronize", merged) | {"before": pull["head"]["sha"]}
    deliver(web, "pull_request", body)
    await drain(settings, redis_url)
    assert len(reviews(fake_github)) == 1 and len(fake_model.requests) == 1
    last = max(fake_github.check_runs.values(), key=lambda c: c["id"])
    assert last["conclusion"] == "skipped" and "base branch" in last["output"]["summary"]


async def test_per_installation_limit_makes_reviews_wait_not_drop(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    one_at_a_time = dataclasses.replace(settings, installation_concurrency=1)
    for number in (7, 8, 9):
        fake_model.script_delay(0.5)
        deliver(web, "pull_request", payload("pull_request.opened", open_pull(fake_github, number=number)))
    await drain(one_at_a_time, redis_url)
    assert all(len(reviews(fake_github, n)) == 1 for n in (7, 8, 9))
    spans = sorted((r.started, r.finished or 0.0) for r in fake_model.requests)
    assert all(spans[i][1] <= spans[i + 1][0] + 0.05 for i in range(len(spans) - 1)), spans


async def test_redis_down_is_503_and_the_redelivery_is_accepted_later(
        env: dict[str, str], fake_github: FakeGitHub, tmp_path_factory: Any) -> None:
    import tempfile
    from pathlib import Path

    from reviewbot.queue.embedded import EmbeddedRedis
    from reviewbot.webhooks.server import create_app
    from tests.fakes.server import ServedApp

    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="rb-down-", dir="/tmp")))
    url = server.start()
    settings = Settings.from_mapping(env | {"REDIS_URL": url})
    body = payload("pull_request.opened", open_pull(fake_github))
    try:
        with ServedApp(create_app(settings, url), lifespan="on") as served, \
                httpx.Client(base_url=served.url, timeout=10) as client:
            server.stop()
            down = deliver(client, "pull_request", body, delivery="guid-down")
            assert down.status_code == 503
            assert client.get("/readyz").status_code == 503
            assert client.get("/healthz").status_code == 200  # liveness: the process itself is fine
            server.start()
            await asyncio.sleep(0.2)
            again = deliver(client, "pull_request", body, delivery="guid-down")
            assert again.status_code == 202 and again.json()["status"] == "queued"
            assert len(queued(url)) == 1
    finally:
        server.stop()
