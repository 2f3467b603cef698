"""Audits after pushes to the default branch (`audit: {on_push: true}`), against the fake GitHub, the fake model and
the real Redis: the webhook stores one deferred job per branch and makes no GitHub call; that job, once its
debounce window is over, audits the branch's head incrementally, and waits while an audit of the branch runs."""

from __future__ import annotations

import asyncio
import copy
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from arq.connections import create_pool
from arq.constants import default_queue_name
from redis.asyncio import Redis

from reviewbot.audit.service_state import AuditStore
from reviewbot.jobs.audit.triggers import start_audit
from reviewbot.queue.worker import redis_settings
from reviewbot.state.keys import push_audit_job_id
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering
from tests.helpers import background_worker, deliver, run_worker_until_idle
from tests.integration.test_audit import DB, GUESS
from tests.integration.test_audit_service import (
    ISSUE,
    TREE,
    ask,
    audit_settings,
    audits,
    every_chunk_reports_the_injection,
)

PUBLISHED = Path(__file__).resolve().parents[1] / "fixtures" / "webhooks" / "published" / "push.jsonl"
CONFIG = ".github/reviewbot.yml"
ON_PUSH = "audit:\n  on_push: true\n"
JOB = push_audit_job_id(REPO, "main")


def push_event(branch: str, sha: str, *, ref: str | None = None, deleted: bool = False) -> dict[str, Any]:
    """GitHub's published example of a push to a branch, pointed at our repository (default branch `main`)."""
    examples = [json.loads(line) for line in PUBLISHED.read_text().splitlines() if line.strip()]
    data = copy.deepcopy(next(e for e in examples if e["ref"].startswith("refs/heads/") and "installation" in e))
    data["installation"]["id"] = INSTALLATION
    data["repository"] |= {"full_name": REPO, "name": REPO.split("/")[1], "default_branch": "main"}
    data |= {"ref": ref or f"refs/heads/{branch}", "after": sha, "deleted": deleted}
    return data


async def queue(redis_url: str) -> dict[str, float]:
    """Queued job id → seconds until it is due."""
    client = Redis.from_url(redis_url)
    try:
        return {k.decode(): v / 1000 - time.time()
                for k, v in await client.zrange(default_queue_name, 0, -1, withscores=True)}
    finally:
        await client.aclose()


async def due_now(redis_url: str, job_id: str) -> None:
    """The debounce window is over (as if its minutes had passed): the job is due now."""
    client = Redis.from_url(redis_url)
    try:
        assert await client.zadd(default_queue_name, {job_id: time.time() * 1000}, xx=True, ch=True) == 1
    finally:
        await client.aclose()


def push(web: httpx.Client, github: FakeGitHub, files: dict[str, str], branch: str = "main") -> str:
    sha = github.set_branch(REPO, branch, files)
    answer = deliver(web, "push", push_event(branch, sha))
    assert answer.status_code == 202, answer.text
    return str(answer.json()["status"])


async def test_three_pushes_in_a_row_start_one_incremental_audit_of_the_last_head(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    files = TREE | {CONFIG: ON_PUSH}
    fake_github.set_branch(REPO, "main", files)
    fake_github.add_issue(REPO, ISSUE)
    fake_model.default = answering(every_chunk_reports_the_injection, {GUESS["title"]: ("refute", None)})
    settings = audit_settings(env)
    ask(web, fake_github, "@reviewbot-test audit")  # the branch's first audit: what the next one starts from
    await run_worker_until_idle(settings, redis_url)

    calls = len(fake_github.requests)
    answers = [push(web, fake_github, files | {"app/db.py": DB + f"# change {n}\n"}) for n in range(3)]
    head = fake_github.branches[(REPO, "main")]
    assert answers == ["queued", "already queued", "already queued"]
    assert len(fake_github.requests) == calls  # the webhook asked GitHub nothing
    [(job, due_in)] = (await queue(redis_url)).items()  # one job, after the debounce window (600 s by default)
    assert job == JOB and 500 < due_in <= 600

    await due_now(redis_url, JOB)
    await run_worker_until_idle(settings, redis_url)
    pushed, first = await audits(redis_url)
    assert pushed.trigger == "push" and pushed.status == "done" and pushed.sha == head
    assert pushed.incremental and [c.paths for c in pushed.chunks] == [["app/db.py"]]
    assert pushed.unchanged == 2 and first.trigger == "comment"
    assert await queue(redis_url) == {}


async def test_a_push_to_another_branch_or_without_on_push_starts_no_audit(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.set_branch(REPO, "main", TREE)  # no `.github/reviewbot.yml`: on_push is off by default
    assert deliver(web, "push", push_event("feature", fake_github.set_branch(REPO, "feature", TREE | {
        CONFIG: ON_PUSH}))).json() == {"status": "ignored", "reason": "push to a branch other than the default branch"}
    assert deliver(web, "push", push_event("main", "0" * 40, ref="refs/tags/v1.0")).json()["status"] == "ignored"
    assert deliver(web, "push", push_event("main", "0" * 40, deleted=True)).json()["status"] == "ignored"
    assert await queue(redis_url) == {}

    assert push(web, fake_github, TREE | {"app/db.py": DB + "# changed\n"}) == "queued"
    await due_now(redis_url, JOB)
    await run_worker_until_idle(audit_settings(env), redis_url)
    assert await audits(redis_url) == [] and await queue(redis_url) == {}
    assert fake_model.async_calls == [] and fake_model.requests == []  # nothing was sent to the model
    config_reads = [c for c in fake_github.requests if c.path == f"/repos/{REPO}/contents/{CONFIG}"]
    assert config_reads and all(c.query.get("ref") == "main" for c in config_reads)  # the default branch's


async def test_a_push_while_an_audit_of_the_branch_runs_is_audited_after_it(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    files = TREE | {CONFIG: ON_PUSH}
    fake_github.set_branch(REPO, "main", files)
    fake_model.default = answering(every_chunk_reports_the_injection, {GUESS["title"]: ("refute", None)})
    client = Redis.from_url(redis_url)
    store = AuditStore(client)
    try:
        assert await store.lock(REPO, "main", "an-audit-of-main") is None  # an audit of main is running
        assert push(web, fake_github, files | {"app/db.py": DB + "# changed\n"}) == "queued"
        async with background_worker(audit_settings(env), redis_url):
            await due_now(redis_url, JOB)
            # The job looks, sees the running audit and defers itself by the debounce window: the push is kept.
            await until(lambda: _due_later(redis_url), "the push job to defer itself")
            assert await audits(redis_url) == []
            again = push(web, fake_github, files | {"app/db.py": DB + "# changed again\n"})
            assert again == "already queued"  # the waiting job covers this push too
            await store.unlock(REPO, "main", "an-audit-of-main")  # the running audit ends
            await due_now(redis_url, JOB)
            await until(lambda: _one_done(redis_url), "the push's audit to finish")
    finally:
        await client.aclose()
    [record] = await audits(redis_url)
    assert record.trigger == "push" and record.sha == fake_github.branches[(REPO, "main")]


async def test_a_push_audit_planned_while_another_audit_took_the_branch_is_owed_not_dropped(
        env: dict[str, str], redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    files = TREE | {CONFIG: ON_PUSH}
    head = fake_github.set_branch(REPO, "main", files)
    fake_model.default = answering(every_chunk_reports_the_injection, {GUESS["title"]: ("refute", None)})
    client = await create_pool(redis_settings(redis_url))
    store = AuditStore(client)
    try:
        # The push job found the branch free and queued the planning job; another audit took the branch since.
        await start_audit(client, INSTALLATION, REPO, branch="main", trigger="push", run=f"push-{head}")
        assert await store.lock(REPO, "main", "an-audit-of-main") is None
        async with background_worker(audit_settings(env), redis_url):
            await until(lambda: _only_the_push_job_waits(redis_url), "the push job to be queued again")
            assert await audits(redis_url) == []
            await store.unlock(REPO, "main", "an-audit-of-main")
            await due_now(redis_url, JOB)
            await until(lambda: _one_done(redis_url), "the push's audit to finish")
    finally:
        await client.aclose()
    [record] = await audits(redis_url)
    assert record.trigger == "push" and record.sha == head


async def until(condition: Callable[[], Awaitable[bool]], what: str, timeout: float = 60.0) -> None:
    """Poll a condition that reads Redis (the worker runs in this event loop meanwhile)."""
    deadline = time.monotonic() + timeout
    while not await condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


async def _due_later(redis_url: str) -> bool:
    return (await queue(redis_url)).get(JOB, 0.0) > 300


async def _only_the_push_job_waits(redis_url: str) -> bool:
    """The push job is queued for later, and the planning job that queued it has ended."""
    waiting = await queue(redis_url)
    return list(waiting) == [JOB] and waiting[JOB] > 300


async def _one_done(redis_url: str) -> bool:
    found = await audits(redis_url)
    return len(found) == 1 and found[0].status == "done" and JOB not in await queue(redis_url)
