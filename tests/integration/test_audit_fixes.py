"""Audit fixes end to end, through the webhook and a real worker against the fake GitHub and the fake model: `@app
fix CWE-89` on an audit's issue opens one checked fix pull request on a private repository and its CI result is told
there; on a public repository nothing public names the finding; `audit: {autofix: open-prs}` opens one pull request
per new critical finding, once."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import httpx
from redis.asyncio import Redis

from reviewbot.observe.ledger import Entry, Ledger
from reviewbot.observe.totals import summarize
from reviewbot.outcomes.classify import fix_trailers
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json, fix_json
from tests.gfm import assert_everything_posted_is_safe
from tests.helpers import deliver, run_worker_until_idle
from tests.integration.test_audit import DB, SQLI
from tests.integration.test_audit_service import ISSUE, TREE, ask, audit_settings, audits, finish_again

UNSAFE = "    return conn.execute(f\"SELECT * FROM users WHERE name = '{name}'\")\n"
SAFE = "    return conn.execute(\"SELECT * FROM users WHERE name = ?\", (name,))\n"
GOOD_FIX = fix_json([("app/db.py", UNSAFE, SAFE)], "Pass the name as a query parameter.")


def auditing(request: dict[str, Any]) -> str:
    """The injection is reported wherever the unsafe line is shown: the audit's chunks, and the re-audit of a fix
    that left it."""
    shown = "\n".join(str(m.get("content")) for m in request["messages"] if isinstance(m, dict))
    return findings_json([SQLI] if UNSAFE.strip() in shown else [], "Audited.")


def fixing(env: dict[str, str], github: FakeGitHub, model: FakeModel, fix: str = GOOD_FIX,
           tree: dict[str, str] = TREE) -> Settings:
    github.set_branch(REPO, "main", tree)
    github.add_issue(REPO, ISSUE)
    github.installations[INSTALLATION].permissions["contents"] = "write"
    github.sarif_pending_polls = 0
    model.default = answering(auditing, fix=fix)
    return dataclasses.replace(audit_settings(env), fixes="push")


def bot_comments(github: FakeGitHub, number: int) -> list[str]:
    return [str(c["body"]) for c in github.issue_comments[(REPO, number)] if c["user"]["login"].endswith("[bot]")]


def fix_pulls(github: FakeGitHub) -> list[Any]:
    return [p for p in github.pulls.values() if p.repo == REPO and p.head_ref.startswith("reviewbot/fix/")]


async def ledger_fixes(redis_url: str) -> list[str]:
    return [e.outcome for e in await ledger(redis_url) if e.kind == "fix"]


async def ledger(redis_url: str) -> list[Entry]:
    client = Redis.from_url(redis_url)
    try:
        return await Ledger(client, 30).recent(50)
    finally:
        await client.aclose()


async def test_a_private_repositorys_finding_gets_one_checked_fix_pull_request_whose_ci_result_is_told(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = fixing(env, fake_github, fake_model)
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    [record] = await audits(redis_url)
    assert [f["title"] for f in record.findings] == [SQLI["title"]]

    [alert] = fake_github.alerts(REPO, "open")
    ask(web, fake_github, f"@reviewbot-test fix #{alert['number']}")
    await run_worker_until_idle(settings, redis_url)
    [pull] = fix_pulls(fake_github)
    assert pull.base_ref == "main" and pull.author == fake_github.bot_login
    files = fake_github.commits[(REPO, pull.head_sha)]
    assert SAFE in files["app/db.py"] and UNSAFE not in files["app/db.py"]
    assert files["app/files.py"] == TREE["app/files.py"]  # nothing else changed
    message = fake_github.commit_messages[(REPO, pull.head_sha)]
    [trailer] = fix_trailers([message])  # the finding's fingerprint, which names the branch too
    assert pull.head_ref == f"reviewbot/fix/{trailer[:12]}"
    assert f"code-scanning alert [#{alert['number']}]" in pull.body and "CWE-89" in pull.body
    assert f"reported on #{ISSUE}" in pull.body
    # Checked before it was opened: the fix, its verification, and the audit's request over the changed file,
    # whose files are the fix's (the re-audit found nothing).
    reaudit = [r for r in fake_model.requests if isinstance(r.json, dict)
               and SAFE.strip() in str(r.json["messages"][-1].get("content")) and "response_format" in r.json
               and "fix" not in json.dumps(r.json.get("response_format"))]
    assert reaudit, "the changed file was audited again before the pull request was opened"
    assert bot_comments(fake_github, ISSUE)[-1].startswith(f"Opened #{pull.number}: a checked fix")

    # The repository's CI is the test bench: its suite completes, the result is told where the fix was asked.
    suite = fake_github.complete_check_suite(REPO, pull.head_sha, [("tests (3.12)", "failure"), ("lint", "success")])
    assert deliver(web, "check_suite", suite).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    told = bot_comments(fake_github, ISSUE)[-1]
    assert "CI failed: `tests (3.12)` — the fix was left unmerged." in told and f"#{pull.number}" in told
    assert deliver(web, "check_suite", suite).status_code == 202  # delivered again: told once all the same
    await run_worker_until_idle(settings, redis_url)
    assert sum("CI failed" in c for c in bot_comments(fake_github, ISSUE)) == 1

    # Asking again (the same words, or all) opens nothing more and pays nothing.
    asked_before = len(fake_model.fix_requests())
    ask(web, fake_github, "@reviewbot-test fix all")
    await run_worker_until_idle(settings, redis_url)
    assert len(fix_pulls(fake_github)) == 1 and len(fake_model.fix_requests()) == asked_before
    assert "was already opened" in bot_comments(fake_github, ISSUE)[-1]
    outcomes = await ledger_fixes(redis_url)
    assert "pull-request" in outcomes and "ci-failed" in outcomes
    total = summarize(await ledger(redis_url)).total  # `reviewbot usage`: the CI result is not another fix
    assert (total.fixes, total.fix_ci_failed, total.fix_ci_passed) == (outcomes.count("pull-request"), 1, 0)
    assert_everything_posted_is_safe(fake_github, REPO, ISSUE)

    # Merged: the next (incremental) audit of the branch no longer reports it, and its upload closes the alert.
    fake_github.set_branch(REPO, "main", files)
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    assert [a["path"] for a in fake_github.alerts(REPO, "fixed")] == ["app/db.py"]


async def test_a_passing_ci_is_told_with_its_count_and_a_fix_the_re_audit_still_flags_is_declined(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    cosmetic = fix_json([("app/db.py", "import sqlite3\n", "import sqlite3  # noqa\n")])
    settings = fixing(env, fake_github, fake_model, fix=cosmetic)
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    ask(web, fake_github, "@reviewbot-test fix")
    await run_worker_until_idle(settings, redis_url)
    assert fix_pulls(fake_github) == []
    assert "an audit of the changed files still reports the finding" in bot_comments(fake_github, ISSUE)[-1]

    fake_model.default = answering(auditing, fix=GOOD_FIX)
    ask(web, fake_github, "@reviewbot-test fix CWE-89")  # declined once: remembered, not paid again
    await run_worker_until_idle(settings, redis_url)
    assert fix_pulls(fake_github) == [] and "already declined" in bot_comments(fake_github, ISSUE)[-1]


async def test_a_public_repositorys_finding_is_never_fixed_in_a_public_pull_request(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = fixing(env, fake_github, fake_model)
    fake_github.visibility[REPO] = "public"
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    ask(web, fake_github, "@reviewbot-test fix CWE-89")
    await run_worker_until_idle(settings, redis_url)
    assert fix_pulls(fake_github) == [] and fake_github.git_commits == []
    refusal = bot_comments(fake_github, ISSUE)[-1]
    assert "this repository is public" in refusal and "🔴 **Critical** 1" in refusal
    public = "\n".join(bot_comments(fake_github, ISSUE))
    assert SQLI["title"] not in public and "app/db.py" not in public and "SELECT" not in public
    assert fake_model.fix_requests() == []  # declined before anything was paid


async def test_autofix_opens_one_pull_request_per_new_critical_finding_once(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    tree = TREE | {".github/reviewbot.yml": "audit:\n  autofix: open-prs\n"}
    settings = fixing(env, fake_github, fake_model, tree=tree)
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    [pull] = fix_pulls(fake_github)
    assert SAFE in fake_github.commits[(REPO, pull.head_sha)]["app/db.py"]

    [record] = await audits(redis_url)
    await finish_again(redis_url, record)  # the finish runs again: no second pull request, nothing paid
    asked_before = len(fake_model.fix_requests())
    await run_worker_until_idle(settings, redis_url)
    assert len(fix_pulls(fake_github)) == 1 and len(fake_model.fix_requests()) == asked_before

    suite = fake_github.complete_check_suite(REPO, pull.head_sha, [(f"test {i}", "success") for i in range(14)])
    assert deliver(web, "check_suite", suite).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    assert "CI passed: 14 checks." in bot_comments(fake_github, pull.number)[-1]


def test_db_is_the_audited_file() -> None:
    assert UNSAFE in DB


async def test_with_suggested_fixes_the_checked_change_is_a_patch_in_the_reply_and_nothing_is_pushed(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = dataclasses.replace(fixing(env, fake_github, fake_model), fixes="suggest")
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    ask(web, fake_github, "@reviewbot-test fix CWE 89")
    await run_worker_until_idle(settings, redis_url)
    assert fix_pulls(fake_github) == [] and fake_github.git_commits == []
    said = bot_comments(fake_github, ISSUE)[-1]
    assert "checked but not pushed" in said and "git apply" in said and SAFE.strip() in said
    assert_everything_posted_is_safe(fake_github, REPO, ISSUE)
