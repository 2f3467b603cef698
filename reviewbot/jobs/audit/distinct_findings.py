"""Candidates of all chunks → one per place (`audit.dedup`, owned by the chunk that audits the file) →
verified once each, in batches, on the owner chunk's own request (its prefix and files are in the provider's cache).
Each candidate is shown the code of its flow (`verify_flow`); a verification that cannot run, or a candidate
whose code the tree lacks, keeps its candidates, labelled unverified, as in reviews."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reviewbot.audit.batches import Batch, verification_batches
from reviewbot.audit.dedup import Distinct, dedupe, same_finding
from reviewbot.audit.factstore import FOLDER as FACTS_FOLDER
from reviewbot.audit.factstore import SqliteFacts
from reviewbot.audit.flowcontext import tree_source
from reviewbot.audit.service_record import AuditRecord, ChunkResult, CodeAsk
from reviewbot.audit.service_state import AuditStore
from reviewbot.audit.verify_flow import check_with_flow
from reviewbot.audit.verify_schema import AUDIT_VERIFY_FORMATS
from reviewbot.errors import ModelPermanent
from reviewbot.inference.allowance import Gate
from reviewbot.inference.verify_request import StructuredVerifier
from reviewbot.jobs.audit.chunk_input import audit_affinity, audit_reviewer, chunk_request
from reviewbot.model import Usage
from reviewbot.repos.cache import DirSnapshot
from reviewbot.repos.index_store import SqliteIndex
from reviewbot.review.config import RepoConfig, precision, with_security
from reviewbot.review.findings.schema import Finding
from reviewbot.review.findings.verification import VerifyAnswer
from reviewbot.state.audit_keys import finish_job_id

if TYPE_CHECKING:
    from reviewbot.jobs.deps import Deps


@dataclass
class Verified:
    kept: list[Finding] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    unchecked: int = 0
    usage: Usage = field(default_factory=Usage)
    asks: list[CodeAsk] = field(default_factory=list)  # candidates whose verifier asked for more code


def distinct(record: AuditRecord, done: dict[int, ChunkResult], read: Callable[[str], str | None]) -> list[Distinct]:
    """Each distinct candidate once, owned by the chunk that audits its file; none that is carried forward from
    the branch's last audit already."""
    candidates = [(index, Finding.model_validate(raw)) for index in sorted(done) for raw in done[index].findings]
    home = {p: int(c.index) for c in record.chunks for p in c.paths}
    # By place, not by code fingerprint alone: a second copy of a carried finding's code is a finding of its own.
    known = [Finding.model_validate(f) for f in record.carried]
    return [d for d in dedupe(candidates, read, home) if not any(same_finding(d.finding, k) for k in known)]


def batches(record: AuditRecord, found: list[Distinct]) -> tuple[list[Batch], list[Finding]]:
    """The repository's precision policy (an audit is a security review: every candidate is checked)."""
    config = with_security(RepoConfig.model_validate(record.config))
    return verification_batches(found, precision(config))


async def verify(deps: Deps, redis: Any, record: AuditRecord, plan: dict[str, Any] | None, snapshot: DirSnapshot,
                 gate: Gate | None, found: list[Distinct]) -> Verified:
    """Every batch is asked at once (each one goes to the provider's queue); the first wait or transient failure
    is raised after all were submitted, and the next try replays what came back (the memo: no batch is paid for
    twice)."""
    reviewer = audit_reviewer(deps, redis, finish_job_id(record.id), snapshot.root, gate)
    checked, kept = batches(record, found)
    stored = await AuditStore(redis).callers(record.id, sorted({d.finding.path for d in found}))
    # The callers the plan kept, the tree's code; its identifiers and definitions per blob, as the plan's.
    data = deps.settings.data_dir
    source = tree_source(snapshot, lambda path: stored.get(path, ()), SqliteIndex(data / "index"),
                         SqliteFacts(data / FACTS_FOLDER))

    async def ask(messages: list[dict[str, str]], ids: list[int]) -> VerifyAnswer:
        return await StructuredVerifier(reviewer.fresh(), AUDIT_VERIFY_FORMATS).verify(messages, ids,
                                                                                       audit_affinity(record))

    async def one(batch: Batch) -> Verified:
        owner = await asyncio.to_thread(chunk_request, record, plan, batch.owner, snapshot.read)
        try:
            result = await check_with_flow(ask, owner, batch.findings, source)
        except ModelPermanent as exc:
            return Verified([f.model_copy(update={"unverified": True}) for f in batch.findings], [],
                            len(batch.findings), exc.usage)
        return Verified(result.kept, list(result.checks.dropped), 0, result.usage, list(result.asks))

    results = await asyncio.gather(*(one(b) for b in checked), return_exceptions=True)
    if failure := next((r for r in results if isinstance(r, BaseException)), None):
        raise failure
    total = Verified(kept=list(kept))
    for result in results:
        assert isinstance(result, Verified)
        total.kept += result.kept
        total.dropped += result.dropped
        total.unchecked += result.unchecked
        total.usage = total.usage + result.usage
        total.asks += result.asks
    return total
