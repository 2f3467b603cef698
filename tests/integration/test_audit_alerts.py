"""Code-scanning alerts that stay right across audits: one category per branch whatever the audit's scope, and an
audit that did not read a file never closes that file's alerts (its run says it is partial)."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx
from redis.asyncio import Redis

from reviewbot.audit.service_state import AuditStore
from reviewbot.state.audit_keys import retired_key
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json
from tests.helpers import run_worker_until_idle
from tests.integration.test_audit import SQLI
from tests.integration.test_audit_service import TREE, ask, asked, audits

SAFE_DB = ("import sqlite3\n\n\ndef find(conn, name):\n"
           "    return conn.execute(\"SELECT * FROM users WHERE name = ?\", (name,))\n")


def shows_db(request: dict[str, Any]) -> bool:
    """A chunk's request that audits app/db.py (a chunk lists its own files under `### path` headings)."""
    return "### app/db.py\n" in request["messages"][1]["content"]


def reports_the_injection_in_db(request: dict[str, Any]) -> str:
    return findings_json([SQLI] if shows_db(request) and "{name}" in request["messages"][1]["content"] else [],
                         "Audited.")


def open_on(github: FakeGitHub, path: str) -> list[dict[str, Any]]:
    return [a for a in github.alerts(REPO, "open") if a["path"] == path]


def last_run(github: FakeGitHub) -> dict[str, Any]:
    upload = list(github.sarif_uploads.values())[-1]
    assert not upload["errors"], upload["errors"]
    return dict(upload["document"]["runs"][0])


async def test_a_folder_audit_after_a_full_one_keeps_one_alert_per_finding_and_fixing_it_closes_it(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.sarif_pending_polls = 0
    settings = asked(web, env, fake_github, fake_model, answering(reports_the_injection_in_db))
    await run_worker_until_idle(settings, redis_url)
    [alert] = open_on(fake_github, "app/db.py")

    fake_github.set_branch(REPO, "main", TREE | {"web/server.ts": "export const x = 1;\n"})
    ask(web, fake_github, "@reviewbot-test audit app")
    await run_worker_until_idle(settings, redis_url)
    scoped = (await audits(redis_url))[0]
    assert scoped.status == "done" and scoped.paths == ["app"]
    # One SQL injection is one alert: the folder's audit is an analysis of the branch's one category, and the
    # files outside the folder keep their last findings (none here) rather than being analysed elsewhere.
    assert [a["number"] for a in fake_github.alerts(REPO, "open")] == [alert["number"]]
    assert {a["category"] for a in fake_github.alerts(REPO)} == {alert["category"]}

    fake_github.set_branch(REPO, "main", TREE | {"app/db.py": SAFE_DB})
    ask(web, fake_github, "@reviewbot-test audit app")
    await run_worker_until_idle(settings, redis_url)
    assert fake_github.alerts(REPO, "open") == []
    assert [a["number"] for a in fake_github.alerts(REPO, "fixed")] == [alert["number"]]


async def test_a_folder_audit_carries_the_findings_outside_its_folder(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.sarif_pending_polls = 0
    settings = asked(web, env, fake_github, fake_model, answering(reports_the_injection_in_db))
    await run_worker_until_idle(settings, redis_url)
    [alert] = open_on(fake_github, "app/db.py")

    ask(web, fake_github, "@reviewbot-test audit full web")
    await run_worker_until_idle(settings, redis_url)
    scoped = (await audits(redis_url))[0]
    assert scoped.paths == ["web"] and [c.paths for c in scoped.chunks] == [["web/server.ts"]]
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in last_run(fake_github)[
        "results"]] == ["app/db.py"]
    assert [a["number"] for a in fake_github.alerts(REPO, "open")] == [alert["number"]]


async def test_a_chunk_that_was_not_audited_keeps_its_files_alerts_and_the_run_says_it_is_partial(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.sarif_pending_polls = 0
    settings = asked(web, env, fake_github, fake_model, answering(reports_the_injection_in_db))
    await run_worker_until_idle(settings, redis_url)
    [alert] = open_on(fake_github, "app/db.py")
    assert "invocations" not in last_run(fake_github) or \
        last_run(fake_github)["invocations"][0]["executionSuccessful"] is True

    fake_model.refuse_submission = shows_db  # app/db.py's chunk is refused for good this time
    ask(web, fake_github, "@reviewbot-test audit full")
    await run_worker_until_idle(settings, redis_url)
    second = (await audits(redis_url))[0]
    assert second.status == "done" and len(second.not_audited) == 1
    run = last_run(fake_github)
    # The file that was not read keeps its alert: its last finding is carried into the upload.
    assert [a["number"] for a in open_on(fake_github, "app/db.py")] == [alert["number"]]
    assert fake_github.alerts(REPO, "fixed") == []
    # And the run is marked partial, naming what was not audited.
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is False
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "app/db.py" in note["message"]["text"]
    assert "not audited" in note["message"]["text"]

    # Once the chunk is audited again and the code is fixed, the alert closes.
    fake_model.refuse_submission = None
    fake_github.set_branch(REPO, "main", TREE | {"app/db.py": SAFE_DB})
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    assert [a["number"] for a in fake_github.alerts(REPO, "fixed")] == [alert["number"]]
    assert "invocations" not in last_run(fake_github) or \
        last_run(fake_github)["invocations"][0]["executionSuccessful"] is True



async def test_a_folder_category_of_an_earlier_version_is_closed_once_by_the_branchs_next_audit(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.sarif_pending_polls = 0
    settings = asked(web, env, fake_github, fake_model, answering(reports_the_injection_in_db))
    await run_worker_until_idle(settings, redis_url)
    [alert] = open_on(fake_github, "app/db.py")
    [first] = await audits(redis_url)
    # As an earlier version left it: `@app audit app` uploaded to a category of its own, a second alert.
    legacy = "reviewbot/audit/main/5f2b1c0d9e8a/"
    fake_github.add_analysis(REPO, "refs/heads/main", {**last_run(fake_github), "automationDetails": {"id": legacy}})
    client = Redis.from_url(redis_url)
    try:
        await AuditStore(client).save(dataclasses.replace(first, id="legacy", paths=["app"], category=legacy,
                                                          created=first.created - 60))
        await client.delete(retired_key(REPO, "main"))  # an earlier version ran the first audit
    finally:
        await client.aclose()
    assert len(fake_github.alerts(REPO, "open")) == 2

    for _ in range(2):  # the next audit closes the old category; the one after has nothing left to close
        ask(web, fake_github, "@reviewbot-test audit")
        await run_worker_until_idle(settings, redis_url)
    assert [a["number"] for a in fake_github.alerts(REPO, "open")] == [alert["number"]]
    assert [a["category"] for a in fake_github.alerts(REPO, "fixed")] == [legacy]
    retiring = [u for u in fake_github.sarif_uploads.values()
                if u["document"]["runs"][0]["automationDetails"]["id"] == legacy]
    assert len(retiring) == 1 and retiring[0]["document"]["runs"][0]["results"] == []
