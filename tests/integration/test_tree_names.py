"""What real trees contain never stops a review or an audit (issue 32 §1): odd names, and jobs that fail."""

from __future__ import annotations

import httpx
from redis.asyncio import Redis

from reviewbot.audit.service_state import AuditStore
from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import BASE_CALC, HEAD_CALC, bug_finding, deliver, payload, run_worker_until_idle
from tests.integration.test_audit_service import answers, ask, asked, audits
from tests.integration.test_audit_service_planner import TREE

LATIN1 = b"caf\xe9.py".decode("utf-8", "surrogateescape")  # a Latin-1 name: legal in git, not UTF-8
LONG_CJK = "漢" * 93 + ".py"  # 93 characters, 282 bytes: longer than the file system allows
ODD = {LATIN1: "x = 1\n", LONG_CJK: "y = 2\n", "CON": "z = 3\n", "tab\tname.py": "w = 4\n",
       "cafe\u0301.py": "v = 5\n", "caf\u00e9.py": "u = 6\n", "README.md": "one\n", "readme.md": "two\n"}
NOTE_UTF8 = "1 file(s) left out of the repository's tree: file name not UTF-8"
NOTE_LONG = "1 file(s) left out of the repository's tree: file name too long for the file system"


async def running(redis_url: str, branch: str = "main") -> str | None:
    client = Redis.from_url(redis_url)
    try:
        return await AuditStore(client).running(REPO, branch)
    finally:
        await client.aclose()


async def test_a_review_of_a_repository_holding_odd_names_reaches_the_model_and_names_what_it_skipped(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.script_reply(findings_json([bug_finding()]))
    pull = fake_github.add_pull(REPO, 7, base_files={"app/calc.py": BASE_CALC, **ODD},
                                head_files={"app/calc.py": HEAD_CALC, **ODD}, title="Rewrite total")
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)

    [review] = fake_github.reviews[(REPO, 7)]
    assert len(review["comments"]) == 1 and len(fake_model.review_requests()) == 1
    [check] = fake_github.check_runs.values()
    assert check["conclusion"] != "failure", check
    assert NOTE_UTF8 in review["body"] and NOTE_LONG in review["body"]  # the coverage says what it could not see


async def test_an_audit_of_a_repository_holding_odd_names_is_planned_and_runs(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = asked(web, env, fake_github, fake_model, files={**TREE, **ODD})
    await run_worker_until_idle(settings, redis_url)

    [record] = await audits(redis_url)
    assert record.status == "done" and record.chunks
    audited = {p for c in record.chunks for p in c.paths}
    assert "app/api/views.py" in audited and "caf\u00e9.py" in audited and LATIN1 not in audited
    assert await running(redis_url) is None
    [answer] = answers(fake_github)
    assert f"Not audited: {NOTE_UTF8}." in answer["body"] and f"Not audited: {NOTE_LONG}." in answer["body"]


async def test_an_unexpected_error_while_planning_releases_the_lock_and_says_so(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    # A reply without the field the port reads: a KeyError, which no handler of GitHub's errors expects.
    fake_github.inject("GET", rf"/repos/{REPO}/commits/main", 200, {"unexpected": True})
    settings = asked(web, env, fake_github, fake_model, files=TREE)
    await run_worker_until_idle(settings, redis_url)

    assert await running(redis_url) is None
    [answer] = answers(fake_github)
    assert answer["body"].startswith("The audit could not start:") and "KeyError" in answer["body"]
    ask(web, fake_github, "@reviewbot-test audit")  # the next request runs: no "already running"
    await run_worker_until_idle(settings, redis_url)
    assert not any("already running" in a["body"] for a in answers(fake_github))
    assert [r.status for r in await audits(redis_url)] == ["done"]


async def test_an_unexpected_error_while_finishing_releases_the_lock_and_edits_the_answer(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.inject("POST", rf"/repos/{REPO}/code-scanning/sarifs", 202, {"unexpected": True})
    settings = asked(web, env, fake_github, fake_model, files=TREE)
    await run_worker_until_idle(settings, redis_url)

    assert await running(redis_url) is None
    [answer] = answers(fake_github)
    assert answer["body"].startswith("The audit could not finish:") and "KeyError" in answer["body"]
