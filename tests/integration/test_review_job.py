"""The review job through a real worker: repair turns, visible failures, affinity, supersede, outside-diff."""

from __future__ import annotations

from typing import Any

import httpx

from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import HEAD_CALC, bug_finding, deliver, open_pull, payload, run_worker_until_idle


async def review(web: httpx.Client, settings: Settings, redis_url: str, pull: dict[str, Any],
                 name: str = "pull_request.opened") -> None:
    assert deliver(web, "pull_request", payload(name, pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)


def only_check(github: FakeGitHub) -> dict[str, Any]:
    [check] = github.check_runs.values()
    return check


async def test_invalid_json_gets_one_repair_turn(web: httpx.Client, settings: Settings, redis_url: str,
                                                 fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    fake_model.script_reply("Sure! The code looks mostly fine, but")
    fake_model.script_reply(findings_json([bug_finding()]))
    await review(web, settings, redis_url, open_pull(fake_github))
    assert len(fake_github.reviews[(REPO, 7)]) == 1
    first, repair = fake_model.review_requests()
    assert repair.json["messages"][:2] == first.json["messages"]
    assert "not valid" in repair.json["messages"][-1]["content"]
    assert first.headers["x-session-affinity"] == repair.headers["x-session-affinity"]
    assert only_check(fake_github)["conclusion"] == "neutral"


async def test_junk_twice_fails_visibly_and_posts_nothing(web: httpx.Client, settings: Settings, redis_url: str,
                                                          fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    fake_model.script_reply("not json")
    fake_model.script_reply('{"summary": "x", "findings": [{"path": 1}]}')
    await review(web, settings, redis_url, open_pull(fake_github))
    assert fake_github.reviews[(REPO, 7)] == []
    check = only_check(fake_github)
    assert (check["status"], check["conclusion"]) == ("completed", "neutral")
    assert "not valid review JSON" in check["output"]["summary"]


async def test_rejected_credentials_are_named_in_the_check_run(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.script_error(401, {"result": None, "success": False,
                                  "errors": [{"code": 10000, "message": "Authentication error"}]})
    await review(web, settings, redis_url, open_pull(fake_github))
    check = only_check(fake_github)
    assert check["conclusion"] == "neutral" and "CLOUDFLARE_API_TOKEN" in check["output"]["summary"]
    assert len(fake_model.requests) == 1  # permanent: not retried


async def test_a_transient_503_is_retried_and_the_review_lands_once(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.script_error(503, {"errors": [{"code": 3040, "message": "Capacity temporarily exceeded"}]})
    fake_model.script_reply(findings_json([bug_finding()]))
    await review(web, settings, redis_url, open_pull(fake_github))
    assert len(fake_github.reviews[(REPO, 7)]) == 1 and len(fake_model.review_requests()) == 2


async def test_findings_outside_the_diff_go_to_the_body_not_a_422(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.script_reply(findings_json([
        bug_finding(),
        bug_finding(path="app/other.py", line=3, title="Helper never closes the file"),
        bug_finding(line=40, title="Line past the end"),
    ]))
    await review(web, settings, redis_url, open_pull(fake_github))
    [posted] = fake_github.reviews[(REPO, 7)]
    assert len(posted["comments"]) == 1
    assert "#### Outside the diff" in posted["body"]
    assert "Helper never closes the file" in posted["body"] and "Line past the end" in posted["body"]


async def test_re_reviews_of_one_pr_share_affinity_and_hit_the_cache(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    await review(web, settings, redis_url, open_pull(fake_github))
    pushed = fake_github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC + "\n\ndef extra():\n    return 1\n"})
    await review(web, settings, redis_url, pushed, "pull_request.synchronize")
    await review(web, settings, redis_url, open_pull(fake_github, number=8))
    first, second, other = fake_model.requests
    assert first.headers["x-session-affinity"] == second.headers["x-session-affinity"]
    assert other.headers["x-session-affinity"] != first.headers["x-session-affinity"]
    # The re-review's prompt starts with the first one's system message and base files, so it is cached.
    assert second.json["messages"][0] == first.json["messages"][0]
    [_, rereview] = fake_github.reviews[(REPO, 7)]
    assert "(0% cached)" not in rereview["body"] and "% cached" in rereview["body"]


async def test_a_job_for_an_older_head_sha_stands_down_before_any_check_run(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    old = open_pull(fake_github)
    fake_github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC + "# newer\n"})
    await review(web, settings, redis_url, old)
    # GitHub says another commit is the head: that commit's own job reviews it; this one leaves no trace.
    assert fake_github.reviews[(REPO, 7)] == [] and fake_model.requests == [] and fake_github.check_runs == {}
