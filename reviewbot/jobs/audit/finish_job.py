"""finish_audit: after the last chunk, the distinct candidates verified once each, the findings published, what
each file held remembered for the next (incremental) audit, the hold and the branch's lock released."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arq import Retry
from redis.exceptions import RedisError

from reviewbot.app.identity import known_slug
from reviewbot.audit.dedup import Distinct
from reviewbot.audit.service_record import AuditRecord, AuditUsage, ChunkResult, Publication
from reviewbot.audit.service_state import AuditStore
from reviewbot.errors import PermanentError, RetryableError, Waiting
from reviewbot.inference.memo import RedisMemo
from reviewbot.jobs.audit.audit_abort import answer_teller, released_on_failure
from reviewbot.jobs.audit.audit_progress import edit_answer
from reviewbot.jobs.audit.audit_record import publish, published_text, with_findings
from reviewbot.jobs.audit.audit_target import keeps_baseline
from reviewbot.jobs.audit.audit_usage import record_audit
from reviewbot.jobs.audit.autofix import AUTOFIX_RUN, enqueue_audit_fix, new_critical, wants_autofix
from reviewbot.jobs.audit.chunk_input import audit_tree, still_waiting
from reviewbot.jobs.audit.chunk_job import audit_budget
from reviewbot.jobs.audit.distinct_findings import Verified, distinct, verify
from reviewbot.jobs.audit.pull_lines import in_diff
from reviewbot.jobs.audit.retired_categories import retire_categories
from reviewbot.jobs.audit.unread import unread_findings
from reviewbot.model import Usage
from reviewbot.observe.fencing import lease_lost
from reviewbot.observe.jobcontext import current
from reviewbot.queue import retries
from reviewbot.queue.enqueue import store_job
from reviewbot.queue.functions import POLL_FUNCTION
from reviewbot.repos.cache import DirSnapshot
from reviewbot.review.findings.schema import SEVERITY_RANK
from reviewbot.state.audit_keys import finish_job_id, hold_id, poll_job_id
from reviewbot.state.learnings_store import Learnings

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.inference.budget import DailyBudget
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)


async def finish_audit(ctx: dict[str, Any], audit_id: str) -> dict[str, Any]:
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    store = AuditStore(redis)
    record = await store.load(audit_id)
    if record is None or record.status != "running":
        return {"outcome": "gone"}
    done, failed = await store.results(audit_id)
    if len(done) + len(failed) < len(record.chunks):
        return {"outcome": "chunks still running"}  # the last chunk queues this job again
    installation_id, repo = record.installation_id, record.repo
    budget = audit_budget(deps)
    if (scope := current()) is not None:
        scope.charge = functools.partial(budget.charge, installation_id, repo, hold_id(audit_id))
    port = deps.installation_port(installation_id)
    try:
        async with released_on_failure(store, repo, record.branch, audit_id,
                                       answer_teller(port, repo, record.comment_id, "The audit could not finish:")), \
                audit_tree(deps, port, repo, record.sha) as root:
            return await _finish(deps, redis, port, store, record, done, failed, budget, root)
    finally:
        port.close()


async def _finish(deps: Deps, redis: Any, port: GitHubPort, store: AuditStore, record: AuditRecord,
                  done: dict[int, ChunkResult], failed: dict[int, str], budget: DailyBudget,
                  root: Path) -> dict[str, Any]:
    installation_id, repo, audit_id = record.installation_id, record.repo, record.id
    job_id = finish_job_id(audit_id)
    snapshot = DirSnapshot(root)
    found = distinct(record, done, snapshot.read)

    async def gate(held_tokens: int, held_usd: float) -> None:
        await budget.reserve(installation_id, repo, hold_id(audit_id), held_usd, held_tokens)

    try:
        if (wait := await still_waiting(deps, redis, job_id, record)) is not None:
            raise Retry(defer=wait)  # no verification prompt is built again until the provider answered
        plan = await store.load_plan(audit_id) if found else None
        verified = await verify(deps, redis, record, plan, snapshot, gate, found)
    except RedisError as exc:
        raise Retry(defer=5.0) from exc
    except Waiting as exc:
        raise Retry(defer=exc.retry_after or 10.0) from exc
    except RetryableError as exc:
        await retries.retry_later(redis, job_id, exc, first_s=deps.settings.retry_delay)
        verified = _unverified(found)  # out of tries: the candidates stand, labelled
    except PermanentError:
        verified = _unverified(found)
    findings = sorted((f.model_dump() for f in verified.kept),
                      key=lambda f: (SEVERITY_RANK[f["severity"]], f["path"], f["line"]))
    record = _totals(record, done, failed, verified, len(found))
    publication = record.publication
    if publication is None:  # a retry of this job after the upload does not upload again
        # Files this audit did not read keep their last findings: an upload without them would close their alerts.
        unread = unread_findings(await store.baseline(repo, record.base_branch or record.branch), record, findings)
        record = with_findings(record, findings + record.carried + unread)
        record = dataclasses.replace(record, in_diff=await in_diff(port, record))
        publication = await _publish(deps, redis, port, store, record, snapshot)
        record = dataclasses.replace(record, publication=publication)
        await store.save(record)
        if publication.where == "code-scanning" and keeps_baseline(record):
            await retire_categories(port, store, record)
    record = dataclasses.replace(record, published=published_text(publication))
    # New critical findings, against the branch's findings before this audit's are remembered just below.
    autofix = await new_critical(store, record, snapshot.read) if wants_autofix(record, deps.settings.fixes) else []
    if keeps_baseline(record):
        await _remember(store, record, done)
    await record_audit(redis, deps.settings, record)  # once per audit, however often this job runs
    record = dataclasses.replace(record, status="done", finished=time.time())
    await store.save(record)
    await edit_answer(port, record, final=True)
    if publication.status == "processing":  # polled by a job of its own, not holding this slot
        await store_job(redis, POLL_FUNCTION, (audit_id,), {}, poll_job_id(audit_id))
    if lease_lost():  # another worker finishes the audit now (a LeaseLost before this point ended this try)
        return {"outcome": "lease lost"}
    with contextlib.suppress(RedisError):  # else the hold lapses by itself after its lease
        await budget.release(installation_id, repo, hold_id(audit_id))
    await store.unlock(repo, record.branch, audit_id)
    if autofix:  # stored once per audit; each finding's pull request is opened once whatever asks again
        await enqueue_audit_fix(redis, record, autofix, "autofix", 0, run=AUTOFIX_RUN)
    await store.forget_callers(audit_id)  # the chunk jobs that read them are done
    await RedisMemo(redis, job_id).clear()
    log.info("audit finished", extra={"repo": repo, "audit": audit_id, "findings": len(record.findings)})
    return {"outcome": "done", "findings": len(record.findings), "not_audited": len(failed)}


async def _publish(deps: Deps, redis: Any, port: GitHubPort, store: AuditStore, record: AuditRecord,
                   snapshot: DirSnapshot) -> Publication:
    """Upload (or write the tracking issue); a refusal GitHub will not change its mind about is reported in the
    record and the answer, and the audit still completes."""
    slug = await known_slug(deps.settings, redis)
    try:
        learnings = [s.learning for s in await Learnings(redis, deps.settings.learning_ttl_days).of(record.repo)]
        return await publish(port, store, record, read=snapshot.read, bot_login=f"{slug}[bot]" if slug else "",
                             key=deps.settings.marker_key(), learnings=learnings)
    except RetryableError as exc:
        await retries.retry_later(redis, finish_job_id(record.id), exc, first_s=deps.settings.retry_delay)
        failure = str(exc)
    except PermanentError as exc:
        failure = str(exc)
    log.warning("audit not published", extra={"repo": record.repo, "error": failure})
    return Publication(where="none", results=0, status="failed", errors=[failure[:500]], cut=[])


def _unverified(found: list[Distinct]) -> Verified:
    return Verified(kept=[d.finding.model_copy(update={"unverified": True}) for d in found], unchecked=len(found))


def _totals(record: AuditRecord, done: dict[int, ChunkResult], failed: dict[int, str], verified: Verified,
            candidates: int) -> AuditRecord:
    spent = sum((d.usage for d in done.values()), Usage()) + verified.usage
    reported = sum(len(d.findings) for d in done.values())
    return dataclasses.replace(
        record, files=sum(len(c.paths) for c in record.chunks), candidates=candidates,
        duplicates=reported - candidates, dropped=verified.dropped, code_asks=list(verified.asks),
        unverified=verified.unchecked + len([a for a in verified.asks if a.outcome == "unverified"]),
        not_audited={str(i): why for i, why in failed.items()}, usage=AuditUsage.of(spent),
        evidence_dropped=sum(d.evidence_dropped for d in done.values()),
        spent_usd=round(spent.cost_usd, 4), carried_count=len(record.carried))


async def _remember(store: AuditStore, record: AuditRecord, done: dict[int, ChunkResult]) -> None:
    """Each audited file's blob and findings (a chunk that was not audited leaves its files to the next audit)."""
    audited = {p for i in done for p in record.chunks[i].paths}
    files: dict[str, dict[str, Any]] = {p: {"blob": record.blobs.get(p, ""), "findings": []} for p in sorted(audited)}
    for finding in record.findings:
        if finding["path"] in files:
            files[finding["path"]]["findings"].append(finding)
    await store.remember(record.repo, record.branch, files, list(record.gone))
