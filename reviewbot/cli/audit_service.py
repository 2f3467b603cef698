"""`reviewbot audit --repo OWNER/NAME` (the running service audits an installed repository) and
`reviewbot audit status` (running and past audits, from Redis)."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import TYPE_CHECKING

from reviewbot.cli.common import redis_url
from reviewbot.settings import Settings

if TYPE_CHECKING:
    from reviewbot.audit.service_record import ListedAudit


def ask_service(settings: Settings, repo: str, branch: str, paths: list[str], full: bool) -> int:
    """Queue the audit's planning job in the service's Redis; the workers do the rest."""
    from arq.connections import ArqRedis, RedisSettings, create_pool

    from reviewbot.app.app_api import AppApi
    from reviewbot.jobs.audit.triggers import start_audit

    async def run(url: str) -> tuple[str, str]:
        app = AppApi.from_settings(settings)
        try:
            installation_id = await app.repo_installation(repo)
        finally:
            app.close()
        pool: ArqRedis = await create_pool(RedisSettings.from_dsn(url))
        try:
            return await start_audit(pool, installation_id, repo, branch=branch, paths=paths, full=full,
                                     trigger="cli", run=f"cli-{uuid.uuid4().hex}")
        finally:
            await pool.aclose()

    # Checked before the embedded Redis starts: a command bound to fail starts nothing.
    settings.require(settings.missing_for_github(), f"reviewbot audit --repo {repo} (the service audits an "
                     f"installed repository; there is no local directory {repo})")
    url, embedded = redis_url(settings)
    try:
        audit, stored = asyncio.run(run(url))
    finally:
        if embedded is not None:
            embedded.stop()
    print(f"audit {audit} of {repo} {stored}; follow it with `reviewbot audit status`")
    return 0


def status_command(settings: Settings, repo: str | None) -> int:
    from redis.asyncio import Redis

    from reviewbot.audit.service_state import AuditStore

    async def run(url: str) -> list[ListedAudit]:
        client = Redis.from_url(url)
        try:
            return await AuditStore(client).recent(50)
        finally:
            await client.aclose()

    url, embedded = redis_url(settings)
    try:
        audits = asyncio.run(run(url))
    finally:
        if embedded is not None:
            embedded.stop()
    audits = [a for a in audits if repo is None or a.record.repo.lower() == repo.lower()]
    if not audits:
        print("no audits yet")
    for a in audits:
        print(status_line(a))
    return 0


def status_line(a: ListedAudit) -> str:
    record = a.record
    total = len(record.chunks)
    settled = a.chunks_done + a.chunks_failed
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime(float(record.created)))
    where = ",".join(record.paths) or "all"
    head = f"{record.id}  {started}  {record.repo}@{record.branch} ({where})  {record.status}"
    if record.status == "running":
        return f"{head}  {settled}/{total} chunks  est ${record.estimate_usd:.2f}"
    findings = len(record.findings)
    failed = len(record.not_audited)
    return (f"{head}  {total} chunks ({failed} not audited)  {findings} findings  "
            f"${float(a.spent_usd or 0):.2f} of est ${record.estimate_usd:.2f}"
            + (f"  {record.published}" if record.published else ""))
