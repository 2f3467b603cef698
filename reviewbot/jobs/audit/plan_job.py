"""plan_audit: the tree at one commit → the files in scope (after an earlier audit, the changed ones with their
callers and callees) → the audit planner's chunks, prefix and context plans in the record, and the estimate; the
estimate is held on the daily budgets, the plan answered, and one job per chunk queued."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arq import Retry

from reviewbot.audit.evidence import CALLER_POOL, callers_of
from reviewbot.audit.factstore import FOLDER as FACTS_FOLDER
from reviewbot.audit.factstore import SqliteFacts
from reviewbot.audit.service_record import AuditRecord
from reviewbot.audit.service_state import AuditStore
from reviewbot.audit.stored import stored_definitions
from reviewbot.errors import CpuBusy, PermanentError, RetryableError
from reviewbot.jobs.audit.audit_abort import comment_teller, released_on_failure
from reviewbot.jobs.audit.audit_scope import Scoped, in_scope, plan_scope, under
from reviewbot.jobs.audit.audit_target import head_of, pull_number
from reviewbot.jobs.audit.audit_text import busy_text, plan_text
from reviewbot.jobs.audit.chunk_input import audit_tree
from reviewbot.jobs.audit.chunk_job import audit_budget
from reviewbot.jobs.audit.push_job import PUSH_TRIGGER, owe_push, recheck_s
from reviewbot.jobs.audit.unread import outside_scope
from reviewbot.jobs.pr_review.gates import load_config
from reviewbot.queue import retries
from reviewbot.queue.cpu import HANDOFF_S
from reviewbot.queue.enqueue import store_job
from reviewbot.queue.functions import CHUNK_FUNCTION, FINISH_FUNCTION
from reviewbot.repos.cache import DirSnapshot
from reviewbot.repos.index_store import SqliteIndex
from reviewbot.review.publish.markdown import neutralize_inline
from reviewbot.settings.catalogue import Price
from reviewbot.state.audit_keys import chunk_job_id, finish_job_id, hold_id, plan_job_id

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)
MAX_PLANNING_STARTS = 5
REFUSED = "The audit could not start:"


async def plan_audit(ctx: dict[str, Any], audit_id: str, installation_id: int, repo: str, branch: str = "",
                     paths: list[str] | None = None, full: bool = False, trigger: str = "comment",
                     number: int | None = None) -> dict[str, Any]:
    """`number`: the issue or pull request whose comment asked for the audit (its answer is edited as it runs)."""
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    store = AuditStore(redis)
    if (record := await store.load(audit_id)) is not None:  # a try after a crash: queue what may be missing
        if record.status == "running":
            await _enqueue(redis, record)
        return {"outcome": "already planned", "audit": audit_id}
    # Extracting the tree, parsing it and its call graph take seconds of one core: a worker plans at most two audits
    # at once and hands the others back to the queue at once, for a worker with an idle core (not a failure).
    try:
        with deps.cpu.slot():
            return await _plan_audit(deps, redis, store, audit_id, installation_id, repo, branch, paths or [],
                                     full, trigger, number)
    except CpuBusy as exc:
        raise Retry(defer=exc.retry_after or HANDOFF_S) from exc


async def _plan_audit(deps: Deps, redis: Any, store: AuditStore, audit_id: str, installation_id: int, repo: str,
                      branch: str, paths: list[str], full: bool, trigger: str, number: int | None) -> dict[str, Any]:
    port = deps.installation_port(installation_id)
    try:
        branch = branch or await port.default_branch(repo)
        if (running := await store.lock(repo, branch, audit_id)) is not None:
            if number is not None:
                await port.create_issue_comment(repo, number, busy_text(branch))
            if trigger == PUSH_TRIGGER:  # the pushes are owed an audit: asked again after the running one
                await owe_push(redis, installation_id, repo, branch, recheck_s(deps.settings))
            return {"outcome": "busy", "running": running}
        async with released_on_failure(store, repo, branch, audit_id,
                                       comment_teller(port, repo, number, REFUSED)):  # the unexpected
            try:
                record = await _plan(deps, port, store, audit_id, installation_id, repo, branch, paths, full,
                                     trigger, number)
            except RetryableError as exc:  # GitHub or the budget's holds: the next try plans (the lock is ours)
                await retries.retry_later(redis, plan_job_id(audit_id), exc, first_s=deps.settings.retry_delay)
                return await _refused(port, store, repo, branch, audit_id, number, f"{exc} (after several tries)")
            except PermanentError as exc:
                return await _refused(port, store, repo, branch, audit_id, number, str(exc))
            if number is not None:
                answer = await port.create_issue_comment(repo, number, plan_text(record))
                record = dataclasses.replace(record, comment_id=answer)
                await store.save(record)
    finally:
        port.close()
    await _enqueue(redis, record)
    log.info("audit planned", extra={"repo": repo, "audit": audit_id, "chunks": len(record.chunks),
                                     "parsed": record.parsed})
    return {"outcome": "planned", "audit": audit_id, "chunks": len(record.chunks)}


async def _refused(port: GitHubPort, store: AuditStore, repo: str, branch: str, audit_id: str, number: int | None,
                   why: str) -> dict[str, Any]:
    await store.unlock(repo, branch, audit_id)
    if number is not None:
        await port.create_issue_comment(repo, number, f"{REFUSED} {neutralize_inline(why)}")
    return {"outcome": "failed", "reason": why}


async def _plan(deps: Deps, port: GitHubPort, store: AuditStore, audit_id: str, installation_id: int, repo: str,
                branch: str, paths: list[str], full: bool, trigger: str, number: int | None) -> AuditRecord:
    sha = await head_of(port, repo, branch)
    repository = await port.repository(repo)  # its visibility decides where findings may be described
    default = repository.default_branch
    config = (await load_config(port, repo, default, visibility=None)).config  # never the audited branch's
    base = default if pull_number(branch) else branch  # a pull request starts from the default branch's last audit
    scope = paths or config.audit.paths
    baseline = await store.baseline(repo, base)
    price = deps.settings.prices.get(deps.settings.model)
    # arq's tries mostly count hand-overs (CpuBusy), so a plan that kills its worker (memory) is stopped here.
    if (starts := await store.planning_started(audit_id)) > MAX_PLANNING_STARTS:
        raise PermanentError(f"planning started {starts - 1} times without finishing (did the worker run out "
                             "of memory or time on this tree?)")
    # Parsing and the call graph take seconds of CPU on a large tree: off the event loop; the tree leased meanwhile.
    async with audit_tree(deps, port, repo, sha) as root:
        snapshot, scoped = await asyncio.to_thread(_planned, deps, root, scope, [*config.ignore, *config.audit.ignore],
                                                   {} if full else baseline, price, config.audit.max_usd)
        blobs, notes = snapshot.blob_ids(), list(snapshot.notes())
    selection = scoped.selection
    audited = [p for c in scoped.chunks for p in c.paths]
    carried_files = list(selection.carried) if selection is not None else []
    record = AuditRecord(
        id=audit_id, installation_id=installation_id, repo=repo, branch=branch, sha=sha, base_branch=base,
        repo_url=f"{deps.settings.github_url.rstrip('/')}/{urllib.parse.quote(repo, safe='/')}",
        visibility=repository.visibility,
        paths=list(scope), full=full, incremental=selection is not None, trigger=trigger,
        number=number, status="running", created=time.time(), model=deps.settings.model,
        config=config.model_dump(mode="json"), max_usd=config.audit.max_usd,
        chunks=scoped.chunks, estimate_usd=scoped.estimate_usd, left_out=scoped.left_out,
        tree_notes=notes,
        unchanged=len(carried_files), related=len(selection.related) if selection is not None else 0,
        # A folder's audit is an analysis of the branch's one category: the rest of the branch keeps its findings.
        carried=[f for p in carried_files for f in baseline.get(p, {}).get("findings") or []]
        + outside_scope(baseline, scope, blobs),
        blobs={p: blobs.get(p, "") for p in audited},
        gone=sorted(p for p in baseline if p not in blobs and under(p, scope)),  # deleted since
        parsed=scoped.parsed,  # files parsed to plan: the facts cache knew the others' content
    )
    # The whole estimate is held before any chunk starts: the audit cannot crowd out the day's reviews.
    await audit_budget(deps).reserve(installation_id, repo, hold_id(audit_id), scoped.estimate_usd,
                                     scoped.estimate_tokens)
    await store.save_callers(audit_id, {p: c for p in audited
                                        if (c := callers_of(scoped.plan.graph, p, CALLER_POOL))})
    await store.save_plan(audit_id, scoped.requests)  # before the record: a chunk job only runs after both
    await store.save(record)
    return record


def _planned(deps: Deps, root: Path, scope: list[str], ignore: list[str], baseline: dict[str, dict[str, Any]],
             price: Price | None, max_usd: float | None) -> tuple[DirSnapshot, Scoped]:
    """The planner over the files in scope. Each file's facts come from the audits' facts cache (per blob id and
    language, shared by the workers under the data dir) where an earlier audit saw the same content; else its
    definitions from the context index reviews share, where a review parsed it; else a parse, kept in both."""
    snapshot = DirSnapshot(root)
    scoped = in_scope(snapshot.paths(), snapshot.read, scope, ignore)
    blobs = snapshot.blob_ids()
    listed = set(scoped)  # a file the last audit saw is still in scope, or gone (not merely ignored now)
    previous = {p: str(seen["blob"]) for p, seen in baseline.items()
                if seen.get("blob") and under(p, scope) and (p in listed or p not in blobs)}
    index = SqliteIndex(deps.settings.data_dir / "index")
    definitions = stored_definitions(index, {p: blobs[p] for p in scoped if blobs.get(p)})
    return snapshot, plan_scope(snapshot, scoped, blobs, previous or None, price=price, max_usd=max_usd,
                                chunk_tokens=deps.settings.audit_chunk_tokens, definitions=definitions,
                                facts_cache=SqliteFacts(deps.settings.data_dir / FACTS_FOLDER))


async def _enqueue(redis: Any, record: AuditRecord) -> None:
    """One job per chunk (ids from the audit and the chunk: queuing twice stores one); none → the finish."""
    for chunk in record.chunks:
        await store_job(redis, CHUNK_FUNCTION, (record.id, chunk.index), {}, chunk_job_id(record.id, chunk.index))
    if not record.chunks:
        await store_job(redis, FINISH_FUNCTION, (record.id,), {}, finish_job_id(record.id))
