"""Planning an audit takes seconds of one core: a worker plans at most two audits at once and hands the next plan
back to the queue for a worker with an idle core; a plan that keeps dying (its worker ran out of memory) is stopped."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import httpx
from arq.constants import retry_key_prefix
from redis.asyncio import Redis

from reviewbot.audit.service_state import AuditStore
from reviewbot.jobs.deps import Deps, build_deps
from reviewbot.state.audit_keys import plan_job_id
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering
from tests.helpers import background_worker, eventually
from tests.integration.test_audit_service import answers, asked, every_chunk_reports_the_injection, listed


@contextlib.contextmanager
def busy(deps: Deps) -> Iterator[None]:
    """As if this worker were planning as many other audits as it plans at once."""
    with contextlib.ExitStack() as taken:
        for _ in range(deps.cpu.slots):
            taken.enter_context(deps.cpu.slot())
        yield


async def queued_plan(redis: Redis) -> str:
    """The id of the one audit asked for, once the command job queued its planning job (whose id names it)."""
    for _ in range(400):
        if keys := [k.decode() for k in await redis.keys("arq:job:reviewbot:audit-plan:*")]:
            assert len(keys) == 1, keys
            return keys[0].rsplit(":", 1)[1]
        await asyncio.sleep(0.05)
    raise AssertionError("no planning job was queued")


async def handed_back(redis: Redis, audit_id: str, times: int) -> None:
    """Until the planning job went back to the queue `times` times (deferred about a second each time)."""
    tries = f"{retry_key_prefix}{plan_job_id(audit_id)}"
    for _ in range(200):
        if int(await redis.get(tries) or 0) >= times:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the plan was not handed back {times} times")


async def test_a_worker_busy_planning_hands_the_next_plan_back_and_plans_it_once_its_core_is_free(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = asked(web, env, fake_github, fake_model, answering(every_chunk_reports_the_injection))
    redis = Redis.from_url(redis_url)
    deps = build_deps(settings, redis)
    try:
        async with background_worker(settings, redis_url, {"deps": deps}):
            with busy(deps):
                audit_id = await queued_plan(redis)
                await handed_back(redis, audit_id, 2)
                assert await AuditStore(redis).load(audit_id) is None and not fake_model.async_calls
                assert answers(fake_github) == []  # nothing said while it waits for a core
            # Its core free again, the worker takes the plan at its next offer.
            await eventually(lambda: any(": done**" in c["body"] for c in answers(fake_github)), 60,
                             "the audit's result in its answer")
            [audit] = await listed(redis_url)
            assert audit.record.status == "done" and audit.chunks_done == len(audit.record.chunks)
            said = [c["body"] for c in answers(fake_github)]
            assert len(said) == 1 and "could not start" not in said[0]  # waiting for a core is not a failure
    finally:
        await deps.aclose()
        await redis.aclose()


async def test_a_plan_that_keeps_killing_its_worker_is_stopped_with_a_reason(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = asked(web, env, fake_github, fake_model)
    redis = Redis.from_url(redis_url)
    deps = build_deps(settings, redis)
    try:
        store = AuditStore(redis)
        async with background_worker(settings, redis_url, {"deps": deps}):
            with busy(deps):
                audit_id = await queued_plan(redis)
                for _ in range(5):  # five workers died planning it (out of memory on a huge tree)
                    await store.planning_started(audit_id)
            await eventually(lambda: bool(answers(fake_github)), 30, "the answer")
        [said] = [c["body"] for c in answers(fake_github)]
        assert said.startswith("The audit could not start: planning started 5 times without finishing")
        assert await store.running(REPO, "main") is None  # the branch is free for the next audit
        assert not fake_model.async_calls and not fake_model.served
    finally:
        await deps.aclose()
        await redis.aclose()
