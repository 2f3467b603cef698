"""An audit chunk whose job lease another worker took over while it built its request submits nothing to the
provider's queue; the lease's holder submits the chunk once and audits it once, and pays nothing for a chunk whose
outcome the stale try stored while the holder built its request."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from typing import Any

import httpx
import pytest
from arq import Retry
from arq.connections import create_pool

from reviewbot.audit.service_record import ChunkResult
from reviewbot.audit.service_state import AuditStore
from reviewbot.errors import AlreadySettled, LeaseLost
from reviewbot.jobs.audit.chunk_input import audit_affinity, audit_reviewer, audit_tree, chunk_request
from reviewbot.jobs.audit.chunk_job import audit_chunk
from reviewbot.jobs.deps import build_deps
from reviewbot.observe.fencing import Lease, context_under
from reviewbot.queue.worker import redis_settings
from reviewbot.repos.cache import DirSnapshot
from reviewbot.state.audit_keys import chunk_job_id
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering
from tests.helpers import run_worker_until_idle
from tests.integration.test_audit_service import asked, audits
from tests.integration.test_audit_service import every_chunk_reports_the_injection as reports_the_injection


def submissions(fake_model: FakeModel) -> int:
    """Requests the provider accepted into its queue (each one is run, and paid, whoever collects it)."""
    return sum(1 for call in fake_model.async_calls if "requests" in call)


async def test_a_chunk_whose_lease_was_taken_over_submits_nothing_and_its_holder_audits_it_once(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = asked(web, env, fake_github, fake_model, answering(reports_the_injection))
    await run_worker_until_idle(settings, redis_url)  # planned (and audited) once: its plan is reused below
    [planned] = await audits(redis_url)
    redis = await create_pool(redis_settings(redis_url))
    deps = build_deps(settings, redis)
    try:
        store = AuditStore(redis)
        record = dataclasses.replace(planned, id="fenced", status="running", findings=[], publication=None)
        plan = await store.load_plan(planned.id)
        assert plan is not None
        await store.save_plan("fenced", plan)
        await store.save(record)
        key = "arq:in-progress:" + chunk_job_id("fenced", 0)
        # The first worker stalled: its lease lapsed and the second worker claimed the job with its own token.
        await redis.set(key, b"second", px=60_000)
        ctx: dict[str, Any] = {"deps": deps, "redis": redis}
        before = submissions(fake_model)

        async def run_as(token: bytes) -> dict[str, Any]:
            lease = Lease(redis, key, token, asyncio.get_running_loop().time() + 60)
            task = context_under(lease).run(asyncio.create_task, audit_chunk(ctx, "fenced", 0))
            return await task

        with pytest.raises(LeaseLost):
            await run_as(b"first")  # it built the chunk's request, then stopped before submitting it
        assert submissions(fake_model) == before
        assert not await store.outcome("fenced", 0)

        outcome: dict[str, Any] | None = None
        for _ in range(10):  # the holder submits, comes back to poll, collects the answer
            try:
                outcome = await run_as(b"second")
                break
            except Retry:
                continue
        assert outcome == {"outcome": "audited", "chunk": 0}
        assert submissions(fake_model) == before + 1
        # The stalled worker, let go again, finds the chunk audited and pays nothing.
        assert await run_as(b"first") == {"outcome": "already audited"}
        assert submissions(fake_model) == before + 1
        assert await store.counts("fenced") == (1, 0)

        # The stale try got further: it collected chunk 1's answer and stored the outcome (clearing the chunk's memo)
        # while the holder was building the same request. The holder asks the outcome right before paying.
        port = deps.installation_port(record.installation_id)
        try:
            async with audit_tree(deps, port, REPO, record.sha) as root:
                messages = chunk_request(record, plan, 1, DirSnapshot(root).read)
                reviewer = audit_reviewer(deps, redis, chunk_job_id("fenced", 1), root, None,
                                          functools.partial(store.outcome, "fenced", 1))
                await store.settle("fenced", 1, done=ChunkResult(findings=[]))
                with pytest.raises(AlreadySettled):
                    await reviewer.review(messages, audit_affinity(record))
        finally:
            port.close()
        assert submissions(fake_model) == before + 1
    finally:
        await deps.aclose()
        await redis.aclose()
