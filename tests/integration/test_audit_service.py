"""Audits as a service, against the fake GitHub and the fake model: an `@app audit` comment on an issue, the
schedule, incremental re-audits, a chunk that keeps failing, two worker processes with one SIGKILLed, and where the
findings go: GitHub code scanning (alerts that open and close across audits), or the tracking issue."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import httpx
from arq.connections import create_pool
from redis.asyncio import Redis

from reviewbot.audit.sarif import audit_category
from reviewbot.audit.service_record import AuditRecord, ListedAudit
from reviewbot.audit.service_state import AuditStore
from reviewbot.jobs.deps import build_deps
from reviewbot.queue.enqueue import store_job
from reviewbot.queue.functions import FINISH_FUNCTION
from reviewbot.queue.worker import redis_settings
from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json, verification_candidates
from tests.gfm import assert_safe_for_github, assert_safe_sarif_message, render
from tests.helpers import deliver, payload, run_worker_until_idle
from tests.integration.test_audit import DB, FILES, GUESS, SERVER, SQLI
from tests.integration.test_audit_formats import VIEWS
from tests.integration.test_cli_review import run_cli
from tests.processes import wait_for, worker

ISSUE = 12
TREE = {"app/db.py": DB, "app/files.py": FILES, "web/server.ts": SERVER, "README.md": "# demo\n",
        "node_modules/dep/index.js": "module.exports = 1;\n"}


def every_chunk_reports_the_injection(request: dict[str, Any]) -> str:
    """A model that reports the SQL injection whatever part it is shown (as chunks whose context includes the
    file do), and the unescaped HTML where it sees the file."""
    user = request["messages"][1]["content"]
    return findings_json([SQLI] + ([GUESS] if "### web/server.ts\n" in user else []), "Audited.")


def audit_settings(env: dict[str, str], **extra: str) -> Settings:
    return Settings.from_mapping(env | {"REVIEWBOT_AUDIT_CHUNK_TOKENS": "30"} | extra)


def ask(web: httpx.Client, github: FakeGitHub, body: str, *, login: str = "maintainer-mo") -> int:
    """`body` as a new comment on a plain issue, delivered as GitHub would."""
    github.permissions.setdefault(login, "write")
    stored = github.add_issue_comment(REPO, ISSUE, body, author=login)
    data = payload("issue_comment.created")
    del data["issue"]["pull_request"]
    data["issue"]["number"] = ISSUE
    data["comment"] |= {"id": stored["id"], "body": body, "author_association": "MEMBER",
                        "user": {"login": login, "id": 99, "type": "User"}}
    assert deliver(web, "issue_comment", data).status_code == 202
    return int(stored["id"])


def answers(github: FakeGitHub) -> list[dict[str, Any]]:
    return [c for c in github.issue_comments[(REPO, ISSUE)] if c["user"]["login"].endswith("[bot]")]


def asked(web: httpx.Client, env: dict[str, str], fake_github: FakeGitHub, fake_model: FakeModel,
          answer: Any = None, files: dict[str, str] = TREE) -> Settings:
    """`files` on the default branch, `answer` as the model (else the fake's default) and an audit asked on an
    issue, not yet run. Returns the settings a worker runs it with."""
    fake_github.set_branch(REPO, "main", files)
    fake_github.add_issue(REPO, ISSUE)
    if answer is not None:
        fake_model.default = answer
    ask(web, fake_github, "@reviewbot-test audit")
    return audit_settings(env)


async def finish_again(redis_url: str, record: AuditRecord) -> None:
    """As if the worker died after the finishing job did its work and before it marked the audit done."""
    client = await create_pool(redis_settings(redis_url))
    try:
        await AuditStore(client).save(dataclasses.replace(record, status="running"))
        await store_job(client, FINISH_FUNCTION, (record.id,), {}, "reviewbot:audit-finish-again")
    finally:
        await client.aclose()


def verification_request(fake_model: FakeModel, candidate: str = "") -> str:
    """The one verification request the provider was sent whose candidates mention `candidate`: its last message."""
    [check] = [c["requests"][0]["messages"][-1]["content"] for c in fake_model.async_calls
               if "requests" in c and verification_candidates(c["requests"][0]) is not None
               and candidate in c["requests"][0]["messages"][-1]["content"]]
    return str(check)


async def first_audit(web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
                      fake_model: FakeModel) -> tuple[Settings, AuditRecord]:
    """The default branch audited once, asked on an issue: the injection confirmed, the guess refuted, the SARIF
    upload processed at its first poll. Returns the settings the worker ran with and the finished audit."""
    fake_github.sarif_pending_polls = 0
    settings = asked(web, env, fake_github, fake_model,
                     answering(every_chunk_reports_the_injection, {GUESS["title"]: ("refute", None)}))
    await run_worker_until_idle(settings, redis_url)
    [record] = await audits(redis_url)
    return settings, record


def running_when_killed(log: str) -> set[str]:
    """The jobs a worker's log shows started (arq's `→`) and not yet ended (`←`, `↻`, `×`) when it stopped."""
    last: dict[str, str] = {}
    for line in log.splitlines():
        try:
            message = str(json.loads(line).get("msg", ""))
        except ValueError:
            continue
        for mark in ("→", "←", "↻", "×"):
            if f"{mark} reviewbot:" in message:
                last[message.split(f"{mark} ", 1)[1].split("(", 1)[0].split(" ", 1)[0]] = mark
    return {job for job, mark in last.items() if mark == "→"}


async def listed(redis_url: str) -> list[ListedAudit]:
    """The audits as the dashboard and `audit status` list them: each record with its chunks' outcomes so far."""
    client = Redis.from_url(redis_url)
    try:
        return await AuditStore(client).recent()
    finally:
        await client.aclose()


async def audits(redis_url: str) -> list[AuditRecord]:
    return [audit.record for audit in await listed(redis_url)]


async def test_an_audit_comment_on_an_issue_plans_runs_in_chunks_verifies_once_and_edits_its_answer(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.set_branch(REPO, "main", TREE)
    fake_github.add_issue(REPO, ISSUE)
    fake_model.default = answering(every_chunk_reports_the_injection, {GUESS["title"]: ("refute", None)})
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(audit_settings(env), redis_url)

    [audit] = await listed(redis_url)
    record = audit.record
    assert record.status == "done" and record.trigger == "comment" and record.branch == "main"
    assert len(record.chunks) == 3 and audit.chunks_failed == 0  # three files, node_modules left out
    # Three chunks reported the injection: one candidate, one verification request, one finding.
    assert record.duplicates == 2 and record.candidates == 2
    assert [f["title"] for f in record.findings] == [SQLI["title"]]
    verifications = [c["requests"][0] for c in fake_model.async_calls if "requests" in c
                     and verification_candidates(c["requests"][0]) is not None]
    assert len(verifications) == 2  # the injection's (from the first chunk) and the HTML one's (its own chunk)
    assert fake_model.requests == []  # every request went through the provider's queue
    # One answer: the plan, edited at the end with the result.
    [answer] = answers(fake_github)
    edits = [c for c in fake_github.requests if c.method == "PATCH" and c.path.endswith(f"/comments/{answer['id']}")]
    assert edits and "done**" in answer["body"] and "estimated $" in answer["body"]
    assert "User input is formatted into SQL" in answer["body"] and "1 finding(s) kept" in answer["body"]
    assert record.spent_usd > 0 and record.usage.async_requests == record.usage.requests == 5
    page = web.get("/dashboard").text
    assert 'id="audits"' in page and REPO in page


async def test_a_second_audit_reads_only_changed_files_and_carries_the_rest_forward_until_full(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = asked(web, env, fake_github, fake_model,
                     answering(every_chunk_reports_the_injection, {GUESS["title"]: ("refute", None)}))
    await run_worker_until_idle(settings, redis_url)
    first_submits = sum(1 for c in fake_model.async_calls if "requests" in c)

    fake_github.set_branch(REPO, "main", TREE | {"web/server.ts": SERVER + "// touched\n"})
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    second, first = await audits(redis_url)
    assert not first.incremental and second.incremental
    assert [c.paths for c in second.chunks] == [["web/server.ts"]]
    assert second.unchanged == 2 and [f["title"] for f in second.findings] == [SQLI["title"]]  # carried
    shown = [c["requests"][0]["messages"][1]["content"] for c in fake_model.async_calls[first_submits:]
             if "requests" in c and verification_candidates(c["requests"][0]) is None]
    assert len(shown) == 1 and "### web/server.ts" in shown[0] and "### app/db.py" not in shown[0]

    ask(web, fake_github, "@reviewbot-test audit full app")
    await run_worker_until_idle(settings, redis_url)
    third = (await audits(redis_url))[0]
    assert third.full and third.paths == ["app"] and len(third.chunks) == 2


async def test_a_chunk_that_keeps_failing_is_reported_as_not_audited_and_the_rest_completes(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.set_branch(REPO, "main", TREE)
    fake_github.add_issue(REPO, ISSUE)
    fake_model.default = answering(every_chunk_reports_the_injection)
    # The provider refuses one chunk's request for good (a 413 never improves).
    fake_model.script_queue_error(413, {"result": None, "success": False,
                                        "errors": [{"code": 3006, "message": "Request is too large"}]})
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(audit_settings(env), redis_url)
    [audit] = await listed(redis_url)
    assert audit.record.status == "done" and len(audit.record.not_audited) == 1 and audit.chunks_done == 2
    [answer] = answers(fake_github)
    assert "Not audited (the rest completed)" in answer["body"]


async def test_the_schedule_starts_one_audit_per_period_however_many_workers_scan(
        env: dict[str, str], redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    config = "audit:\n  schedule: daily\n  paths: [app]\n  max_usd: 0.012\n"
    fake_github.set_branch(REPO, "main", TREE | {".github/reviewbot.yml": config})
    fake_model.default = answering(every_chunk_reports_the_injection)
    settings = audit_settings(env)
    client = await create_pool(redis_settings(redis_url))
    deps = [build_deps(settings, client) for _ in range(2)]
    try:
        from reviewbot.jobs.audit.schedule import audit_schedules

        scans = await asyncio.gather(*(audit_schedules({"deps": d, "redis": client, "settings": settings})
                                       for d in deps + deps))
    finally:
        for d in deps:
            await d.aclose()
        await client.aclose()
    assert sorted(len(s["started"]) for s in scans) == [0, 0, 0, 1]
    await run_worker_until_idle(settings, redis_url)
    [record] = await audits(redis_url)
    assert record.trigger == "schedule" and record.status == "done" and record.paths == ["app"]
    # `max_usd` caps the estimate: what did not fit is left out and said so.
    assert record.left_out and sum(len(c.paths) for c in record.chunks) + len(record.left_out) == 2
    assert record.estimate_usd <= 0.012
    # It ends in code scanning like a requested audit: one accepted upload in the category of `app` on main.
    [upload] = fake_github.sarif_uploads.values()
    assert not upload["errors"] and upload["ref"] == "refs/heads/main" and upload["commit_sha"] == record.sha
    assert record.publication.status == "complete" and record.published.startswith("published to code")
    assert [a["category"] for a in fake_github.alerts(REPO)] == [audit_category("main")] * len(
        record.findings)


def test_two_worker_processes_finish_an_audit_asked_from_the_cli_though_one_is_killed_midway(
        env: dict[str, str], redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    files = {f"app/mod{i}.py": f"def handler_{i}(request):\n    return request.args['q{i}']\n" for i in range(8)}
    fake_github.set_branch(REPO, "main", files | {"app/db.py": DB})
    fake_model.default = answering(every_chunk_reports_the_injection)
    fake_model.async_polls_before_done = 3  # each request waits in the provider's queue for a few polls
    # A third of the default lease: the killed worker's chunks are taken over 5 s after the kill, not 15 s.
    env = env | {"REVIEWBOT_AUDIT_CHUNK_TOKENS": "20", "REVIEWBOT_JOB_TIMEOUT": "900", "REVIEWBOT_JOB_LEASE": "5"}
    asked = run_cli(["audit", "--repo", REPO], env, tmp_path)
    assert asked.returncode == 0 and "queued" in asked.stdout, asked.stderr

    with worker(env, tmp_path, "first") as first, worker(env, tmp_path, "second") as second:
        wait_for(lambda: "worker started" in second.text(), 30, "the second worker to start")
        wait_for(lambda: len(fake_model.served) >= 2, 60, "the first chunks answered", every=0.01)
        first.kill()
        killed_at = time.monotonic()
        cut = running_when_killed(first.text())
        killed = asyncio.run(listed(redis_url))[0]
        assert killed.record.status == "running" and killed.chunks_done < 9  # killed in the middle
        wait_for(lambda: asyncio.run(audits(redis_url))[0].status == "done", 120, "the audit to finish")
        print(f"\nkilled with {killed.chunks_done} of 9 chunks done; the audit finished "
              f"{time.monotonic() - killed_at:.1f} s later")
        status = run_cli(["audit", "status"], env, tmp_path)
    [audit] = asyncio.run(listed(redis_url))
    record = audit.record
    assert len(record.chunks) == 9 and audit.chunks_done == 9 and not record.not_audited
    assert [f["title"] for f in record.findings] == [SQLI["title"]]
    # No chunk paid twice: each request was submitted once, and the provider answered each once. The one exception
    # is inherent: the provider has no idempotency key, so a request the killed worker was submitting at that
    # instant, accepted before its id reached Redis, is submitted again by the survivor (bounded by the jobs the
    # killed worker had running; a final CI run caught one such request).
    submitted = [json.dumps(c["requests"][0], sort_keys=True) for c in fake_model.async_calls if "requests" in c]
    assert len(set(submitted)) == 10, len(set(submitted))  # 9 chunks + 1 verification
    assert len(submitted) - 10 <= len(cut), (len(submitted), cut)
    assert len(fake_model.served) == 10, [s["usage"]["prompt_tokens"] for s in fake_model.served]
    assert "audit_chunk" in second.text()  # the survivor took chunks over
    assert f"{REPO}@main (all)  done  9 chunks (0 not audited)  1 findings" in status.stdout


async def test_an_audit_ends_in_code_scanning_and_the_next_one_closes_the_alert_it_no_longer_reports(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = asked(web, env, fake_github, fake_model,
                     answering(every_chunk_reports_the_injection))  # both candidates confirmed
    await run_worker_until_idle(settings, redis_url)  # the upload is pending once: its status job defers itself

    [first] = await audits(redis_url)
    [upload] = fake_github.sarif_uploads.values()
    assert not upload["errors"] and upload["ref"] == "refs/heads/main" and upload["commit_sha"] == first.sha
    assert first.publication is not None and (first.publication.cut, first.publication.errors) == ([], [])
    assert first.publication.status == "complete" and first.publication.results == 2
    opened = {a["path"]: a for a in fake_github.alerts(REPO, "open")}
    assert sorted(opened) == ["app/db.py", "web/server.ts"]
    assert {a["category"] for a in opened.values()} == {audit_category("main")}
    [answer] = answers(fake_github)
    assert "published to code scanning: 2 alert(s)" in answer["body"]
    status = [c for c in fake_github.requests if c.method == "GET" and "/code-scanning/sarifs/" in c.path]
    assert len(status) == 2  # pending, then complete

    # The HTML finding is refuted now: the next analysis of the same category closes its alert, keeps the other.
    fake_github.sarif_pending_polls = 0
    fake_model.default = answering(every_chunk_reports_the_injection, {GUESS["title"]: ("refute", None)})
    ask(web, fake_github, "@reviewbot-test audit full")
    await run_worker_until_idle(settings, redis_url)
    second = (await audits(redis_url))[0]
    assert second.category == first.category and second.publication.results == 1
    assert len(fake_github.sarif_uploads) == 2  # one upload per audit
    assert [a["path"] for a in fake_github.alerts(REPO, "fixed")] == ["web/server.ts"]
    [kept] = fake_github.alerts(REPO, "open")
    assert kept["number"] == opened["app/db.py"]["number"]  # the same alert, not a new one
    assert "published to code scanning: 1 alert(s)" in answers(fake_github)[-1]["body"]


async def test_without_code_scanning_each_audit_edits_the_one_tracking_issue(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.set_branch(REPO, "main", TREE)
    fake_github.add_issue(REPO, ISSUE)
    fake_github.code_scanning_off.add(REPO)  # private, without Code Security: the upload answers 403
    fake_model.default = answering(every_chunk_reports_the_injection, {GUESS["title"]: ("refute", None)})
    settings = audit_settings(env)
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    [first] = await audits(redis_url)
    number = first.publication.issue_number
    assert first.publication.where == "issue" and not fake_github.sarif_uploads
    assert [n for (r, n) in fake_github.issues if r == REPO and n != ISSUE] == [number]
    assert SQLI["title"] in fake_github.issues[(REPO, number)]["body"]
    answer = answers(fake_github)[0]["body"]
    assert f"code scanning is not available here (GitHub Code Security or Advanced Security is not enabled): " \
           f"tracking issue [\\#{number}](https://github.com/{REPO}/issues/{number}) (1 new)" in answer
    assert f'<a href="https://github.com/{REPO}/issues/{number}">#{number}</a>' in render(answer)  # a real link
    assert_safe_for_github(answer, repo=REPO)  # into the repository itself: nothing foreign, no ping

    ask(web, fake_github, "@reviewbot-test audit full")
    await run_worker_until_idle(settings, redis_url)
    second = (await audits(redis_url))[0]
    assert second.publication.issue_number == number  # remembered from the first audit
    assert [n for (r, n) in fake_github.issues if r == REPO and n != ISSUE] == [number]  # never a second issue
    edits = [c for c in fake_github.requests if c.method == "PATCH" and c.path.endswith(f"/issues/{number}")]
    assert len(edits) == 1


async def test_a_finishing_job_run_again_after_its_upload_does_not_upload_twice(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings, record = await first_audit(web, env, redis_url, fake_github, fake_model)
    # As if the worker died after the upload was remembered and before the audit was marked done: it runs again.
    await finish_again(redis_url, record)
    await run_worker_until_idle(settings, redis_url)
    [again] = await audits(redis_url)
    assert again.status == "done" and again.publication.sarif_id == record.publication.sarif_id
    assert len(fake_github.sarif_uploads) == 1 and len(fake_github.alerts(REPO, "open")) == 1


def injection_with_evidence(request: dict[str, Any]) -> str:
    """The injection where its file is audited, with the line where the name enters (another file), the sink, and
    lines no audit may publish (outside the tree, a URL, past a file's end) and a note that pings and links."""
    user = request["messages"][1]["content"]
    evidence = [{"path": "app/views.py", "line": 5, "role": "source",
                 "note": "from the query, cc @admin www.evil.example"},
                {"path": "app/db.py", "line": 5, "role": "sink", "note": "formatted into SQL"},
                {"path": "../../etc/passwd", "line": 1, "role": "step", "note": "x"},
                {"path": "https://evil.example/a.py", "line": 1, "role": "step", "note": "x"},
                {"path": "app/views.py", "line": 99, "role": "step", "note": "x"}]
    own = "+++ app/db.py\n" in user or "### app/db.py\n" in user
    return findings_json([{**SQLI, "evidence": evidence}] if own else [], "Audited.")


async def test_the_models_evidence_reaches_code_scanning_and_the_tracking_issue_and_nothing_else_does(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.sarif_pending_polls = 0
    fake_model.constrained = True  # evidence arrives only because the audit's schema asks for it
    settings = asked(web, env, fake_github, fake_model, answering(injection_with_evidence),
                     TREE | {"app/views.py": VIEWS})
    await run_worker_until_idle(settings, redis_url)
    [record] = await audits(redis_url)
    assert record.evidence_dropped == 3 * (record.candidates + record.duplicates)  # per answer, counted
    [upload] = fake_github.sarif_uploads.values()
    assert not upload["errors"]
    [result] = upload["document"]["runs"][0]["results"]
    assert [(r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"]["startLine"])
            for r in result["relatedLocations"]] == [("app/views.py", 5)]
    flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [s["location"]["physicalLocation"]["artifactLocation"]["uri"] for s in flow] == ["app/views.py",
                                                                                           "app/db.py"]
    for text in [result["message"]["text"], *(s["location"]["message"]["text"] for s in flow)]:
        assert_safe_sarif_message(text)
    assert "passwd" not in json.dumps(upload["document"]) and "a.py" not in json.dumps(upload["document"])
    [alert] = fake_github.alerts(REPO, "open")
    assert (alert["related"], alert["flows"]) == (1, 1)
    # The verifier is shown the flow's lines with their code, not only the sink's surroundings.
    shown = verification_request(fake_model)
    assert "source app/views.py:5  return find(conn, request.args['name'])  # from the query" in shown
    assert "sink   app/db.py:5  " in shown and "passwd" not in shown and "app/views.py:99" not in shown

    fake_github.code_scanning_off.add(REPO)  # the next audit falls back to the tracking issue
    ask(web, fake_github, "@reviewbot-test audit full")
    await run_worker_until_idle(settings, redis_url)
    number = (await audits(redis_url))[0].publication.issue_number
    body = fake_github.issues[(REPO, number)]["body"]
    assert "Evidence: source `app/views.py:5` → sink `app/db.py:5`." in body
    assert "passwd" not in body and "evil" not in body
    assert_safe_for_github(body, repo=REPO)


async def test_a_service_audit_adds_where_the_strongest_caller_calls_the_finding_as_a_step(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    # As the local command does: the model names no evidence; the plan's call graph knows that app/views.py calls
    # `find`, so the published result shows where, and the verifier saw it too.
    fake_github.sarif_pending_polls = 0
    settings = asked(web, env, fake_github, fake_model, answering(every_chunk_reports_the_injection),
                     TREE | {"app/views.py": VIEWS})
    await run_worker_until_idle(settings, redis_url)
    [upload] = fake_github.sarif_uploads.values()
    assert not upload["errors"]
    [result] = [r for r in upload["document"]["runs"][0]["results"]
                if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "app/db.py"]
    related = [(r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"]["startLine"],
                r["message"]["text"]) for r in result["relatedLocations"]]
    assert related == [("app/views.py", 5, "step: calls find")]
    redis = Redis.from_url(redis_url)
    try:  # kept while the chunk jobs needed them, not for the record's 30 days
        assert [k async for k in redis.scan_iter("reviewbot:audit:*:callers")] == []
    finally:
        await redis.aclose()
    assert "step   app/views.py:5  return find(conn, request.args['name'])  # calls find" in \
        verification_request(fake_model, "app/db.py line 5")
