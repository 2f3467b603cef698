"""audit_chunk: one chunk of an audit, in whichever worker takes it. A request waiting in the provider's queue
gives the worker slot back (the job defers itself and polls on its next try); the last chunk starts the finish."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from typing import TYPE_CHECKING, Any

from arq import Retry
from redis.exceptions import RedisError

from reviewbot.audit.chunkprompt import MAX_FILE_CHARS
from reviewbot.audit.evidence import checked, with_stored_callers
from reviewbot.audit.service_record import AuditRecord, ChunkResult
from reviewbot.audit.service_state import AuditStore
from reviewbot.errors import AlreadySettled, PermanentError, RetryableError, Waiting
from reviewbot.inference.budget import DailyBudget
from reviewbot.inference.memo import RedisMemo
from reviewbot.jobs.audit.audit_progress import maybe_progress
from reviewbot.jobs.audit.chunk_input import audit_affinity, audit_reviewer, audit_tree, chunk_request, still_waiting
from reviewbot.model import Usage
from reviewbot.observe.fencing import lease_lost
from reviewbot.observe.jobcontext import current
from reviewbot.observe.metrics import AUDIT_CHUNKS, AUDIT_COST, AUDIT_TOKENS, Batch
from reviewbot.queue import retries
from reviewbot.queue.enqueue import store_job
from reviewbot.queue.functions import FINISH_FUNCTION
from reviewbot.repos.cache import DirSnapshot
from reviewbot.state.audit_keys import chunk_job_id, finish_job_id, hold_id

if TYPE_CHECKING:
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)
HOLD_LEASE_S = 86_400  # an audit holds its estimate for up to a day, across all its chunks and workers


def audit_budget(deps: Deps) -> DailyBudget:
    """The workers' daily budgets, with a hold that outlives any one job."""
    return DailyBudget(deps.redis, *deps.budget.limits, lease_s=HOLD_LEASE_S)


async def audit_chunk(ctx: dict[str, Any], audit_id: str, index: int) -> dict[str, Any]:
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    store = AuditStore(redis)
    record = await store.load(audit_id)
    if record is None or record.status != "running":
        return {"outcome": "gone"}
    if await store.outcome(audit_id, index):  # a try after a crash between storing the result and the finish
        await _finish_if_last(redis, store, record)
        return {"outcome": "already audited"}
    # The tree is leased from its download to the chunk's result: eviction never deletes it under this job.
    async with contextlib.AsyncExitStack() as lease:
        return await _audit(deps, redis, store, record, index, lease)


async def _audit(deps: Deps, redis: Any, store: AuditStore, record: AuditRecord, index: int,
                 lease: contextlib.AsyncExitStack) -> dict[str, Any]:
    audit_id = record.id
    job_id = chunk_job_id(audit_id, index)
    installation_id, repo = record.installation_id, record.repo
    budget = audit_budget(deps)
    if (scope := current()) is not None:  # every paid request is charged as it arrives, to the audit's hold
        scope.charge = functools.partial(budget.charge, installation_id, repo, hold_id(audit_id))
    port = deps.installation_port(installation_id)
    held = False
    try:
        # The tree before the slot: a worker new to this commit downloads it without holding one of the
        # installation's slots while the other workers' chunks wait for them (a cache hit afterwards).
        root = await lease.enter_async_context(audit_tree(deps, port, repo, record.sha))
        if not await deps.slots.acquire(installation_id, job_id):
            raise retries.wait_for_slot()
        held = True
        if (wait := await still_waiting(deps, redis, job_id, record)) is not None:
            raise Retry(defer=wait)  # the provider has not answered: no prompt is built, no slot kept
        snapshot = DirSnapshot(root)
        plan = await store.load_plan(audit_id)
        messages = await asyncio.to_thread(chunk_request, record, plan, index, snapshot.read)

        async def gate(held_tokens: int, held_usd: float) -> None:
            await budget.reserve(installation_id, repo, hold_id(audit_id), held_usd, held_tokens)

        reviewer = audit_reviewer(deps, redis, job_id, root, gate, functools.partial(store.outcome, audit_id, index))
        answer = await reviewer.review(messages, audit_affinity(record))  # candidates: the finish verifies them
    except AlreadySettled:  # a stale try (its lease lapsed) collected the answer and stored it while this one built
        await _finish_if_last(redis, store, record)
        return {"outcome": "already audited"}
    except RedisError as exc:
        raise Retry(defer=5.0) from exc
    except Waiting as exc:  # in the provider's queue (or our rate limit): come back without holding a slot
        raise Retry(defer=exc.retry_after or 10.0) from exc
    except RetryableError as exc:
        # raises Retry while the chunk has tries left
        await retries.retry_later(redis, job_id, exc, first_s=deps.settings.retry_delay)
        return await _settle(deps, redis, store, record, index, failed=f"failed {retries.MAX_ATTEMPTS} times: {exc}")
    except PermanentError as exc:
        return await _settle(deps, redis, store, record, index, failed=str(exc))
    finally:
        port.close()
        if held and not lease_lost():  # else the slot (same job id) is the worker's that runs the chunk now
            await deps.slots.release(installation_id, job_id)
    # A finding in a file this audit does not review (context only, or carried forward) is not its to report.
    audited, paths = set(record.blobs), record.chunks[index].paths
    found = answer.output.findings
    # The model's evidence lines: kept only where they name a line of a file of this tree (counted otherwise);
    # then the call graph's, where the strongest callers call the definition around the finding.
    kept, dropped = await asyncio.to_thread(checked, [f for f in found if f.path in audited], snapshot)
    callers = await store.callers(audit_id, sorted({f.path for f in kept}))
    kept = await asyncio.to_thread(with_stored_callers, kept, callers, snapshot.read)
    done = ChunkResult(findings=[f.model_dump() for f in kept], evidence_dropped=dropped,
                       outside=len([f for f in found if f.path not in audited]), usage=answer.usage,
                       partial=[(p, f"only the first {MAX_FILE_CHARS:,} characters were audited") for p in paths
                                if (root / p).is_file() and (root / p).stat().st_size > MAX_FILE_CHARS])
    outcome = await _settle(deps, redis, store, record, index, done=done)
    await RedisMemo(redis, job_id).clear()
    await retries.forget(redis, job_id)
    return outcome


async def _settle(deps: Deps, redis: Any, store: AuditStore, record: AuditRecord, index: int, *,
                  done: ChunkResult | None = None, failed: str | None = None) -> dict[str, Any]:
    stored, _ = await store.settle(record.id, index, done=done, failed=failed)
    if stored:
        batch = Batch()
        batch.inc(AUDIT_CHUNKS, outcome="audited" if done is not None else "not audited")
        usage = done.usage if done is not None else Usage()
        for kind, tokens in (("prompt", usage.prompt_tokens), ("cached", usage.cached_tokens),
                             ("completion", usage.completion_tokens)):
            batch.inc(AUDIT_TOKENS, float(tokens), kind=kind)
        batch.inc(AUDIT_COST, float(usage.cost_usd))
        await batch.send(redis)
        if failed is not None:
            log.warning("audit chunk not audited", extra={"repo": record.repo, "chunk": index, "error": failed})
        port = deps.installation_port(record.installation_id)
        try:
            await maybe_progress(port, redis, record)
        finally:
            port.close()
    await _finish_if_last(redis, store, record)
    return {"outcome": "audited" if done is not None else "not audited", "chunk": index}


async def _finish_if_last(redis: Any, store: AuditStore, record: AuditRecord) -> None:
    done, failed = await store.counts(record.id)
    if done + failed >= len(record.chunks):
        await store_job(redis, FINISH_FUNCTION, (record.id,), {}, finish_job_id(record.id))
