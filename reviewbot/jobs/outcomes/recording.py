"""Outcome records from a review (findings posted, threads resolved as fixed) and a thread command (dismissed,
forgotten), with their Prometheus counters."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from reviewbot.observe.metrics import FINDINGS_POSTED, OUTCOMES, REACTIONS, Batch
from reviewbot.outcomes.classify import decided
from reviewbot.outcomes.outcome_store import OutcomeStore
from reviewbot.outcomes.records import DECIDED_BEFORE_CLOSE, FindingRecord

if TYPE_CHECKING:
    from reviewbot.review.findings.anchoring import Anchored


async def record_review(redis: Any, installation: int, repo: str, number: int, *,
                        posted: Sequence[tuple[str, Anchored]], fixed: Sequence[str], model: str, by: str,
                        now: float | None = None) -> None:
    """A review's line comments become records; earlier findings whose threads it resolved are `fixed`."""
    now = time.time() if now is None else now
    store = OutcomeStore(redis)
    records = [FindingRecord(installation=installation, repo=repo, pr=number, fingerprint=fp,
                             category=a.finding.category, severity=a.finding.severity, path=a.finding.path,
                             line=a.line, start_line=a.start_line or 0, cwe=a.finding.cwe or "", model=model,
                             posted_at=now) for fp, a in posted]
    batch = Batch()
    for record in await store.posted(records):
        batch.inc(FINDINGS_POSTED, category=record.category, severity=record.severity)
    await decide(store, batch, installation, repo, number, fixed, "fixed", by=by, now=now)
    await batch.send(redis)


async def record_dismissal(redis: Any, installation: int, repo: str, number: int, fingerprint: str, *, by: str,
                           repository: bool) -> None:
    batch = Batch()
    await decide(OutcomeStore(redis), batch, installation, repo, number, [fingerprint], "dismissed", by=by,
                 scope="repository" if repository else "pull request")
    await batch.send(redis)


async def record_forgotten(redis: Any, installation: int, repo: str, number: int, fingerprint: str) -> None:
    """`forget` undoes a dismissal: the finding is undecided again (its counter, once counted, stays)."""
    def undone(record: FindingRecord) -> FindingRecord:
        if record.outcome != "dismissed":
            return record
        return dataclasses.replace(record, outcome="", by="", scope="", decided_at=0.0)

    await OutcomeStore(redis).update(installation, repo, [f"{int(number)}:{fingerprint}"], undone)


async def decide(store: OutcomeStore, batch: Batch, installation: int, repo: str, number: int,
                 fingerprints: Iterable[str], outcome: str, *, by: str, scope: str = "",
                 now: float | None = None) -> None:
    """Set the outcome of records not yet fixed or dismissed; a finding reviewbot has no record of is skipped."""
    now = time.time() if now is None else now
    def settled(record: FindingRecord) -> FindingRecord:
        return record if record.outcome in DECIDED_BEFORE_CLOSE else decided(record, outcome, by, now, scope)

    pairs = await store.update(installation, repo, [f"{int(number)}:{fp}" for fp in fingerprints], settled)
    count(batch, [(None, new) for old, new in pairs if new != old])


def count(batch: Batch, changes: Iterable[tuple[FindingRecord | None, FindingRecord]]) -> None:
    """Counters for each record whose outcome changed, and reactions read at its pull request's first close."""
    for old, new in changes:
        category, severity = new.category, new.severity
        if new.outcome and (old is None or old.outcome != new.outcome):
            batch.inc(OUTCOMES, outcome=new.outcome, category=category, severity=severity)
        if new.closed_at and (old is None or not old.closed_at):
            batch.inc(REACTIONS, new.thumbs_up, reaction="+1", category=category, severity=severity)
            batch.inc(REACTIONS, new.thumbs_down, reaction="-1", category=category, severity=severity)
