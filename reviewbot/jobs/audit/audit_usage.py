"""A finished audit's line in the usage ledger: what all its chunks and verifications spent, written once per audit
however often the finishing job runs (`reviewbot usage` and the dashboard read it next to reviews)."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from reviewbot.jobs.audit.audit_target import pull_number
from reviewbot.model import Usage
from reviewbot.observe.ledger import AUDITED, Entry, Ledger
from reviewbot.queue.observed import savings
from reviewbot.settings import Settings
from reviewbot.state.audit_keys import TTL_S, finish_job_id, ledger_once


def audit_entry(record: dict[str, Any], settings: Settings, now: float) -> Entry:
    """The audit's totals (chunks + verification, from `record["usage"]`), its trigger, the findings it reports
    by severity (carried-forward ones included: the complete picture it published) and the files it covered;
    `pr` is the pull request whose head it audited, 0 for a branch."""
    spent = record.get("usage") or {}
    usage = Usage(**{k: int(spent.get(k) or 0) for k in ("prompt_tokens", "cached_tokens", "completion_tokens",
                                                          "requests", "async_requests")},
                  cost_usd=float(spent.get("cost_usd") or 0.0))
    findings = record.get("findings") or []
    severities = Counter(str(f.get("severity")) for f in findings)
    chunks = record["chunks"]
    not_audited = sum(len(chunks[int(i)]["paths"]) for i in record.get("not_audited") or {})
    model = str(record.get("model") or settings.model)
    return Entry(
        repo=str(record["repo"]), pr=pull_number(str(record["branch"])) or 0, sha=str(record["sha"]), outcome=AUDITED,
        reason=f"{len(record.get('not_audited') or {})} chunk(s) not audited" if record.get("not_audited") else "",
        trigger=str(record.get("trigger") or ""), installation=int(record["installation_id"]),
        duration_s=round(max(0.0, now - float(record["created"])), 3),
        files_reviewed=int(record.get("files") or 0) - not_audited,
        files_skipped=not_audited + len(record.get("left_out") or []), comments=len(findings),
        critical=severities["critical"], major=severities["major"], minor=severities["minor"], nit=severities["nit"],
        prompt_tokens=usage.prompt_tokens, cached_tokens=usage.cached_tokens,
        completion_tokens=usage.completion_tokens, cost_usd=usage.cost_usd,
        saved_usd=savings(settings, model, usage), requests=usage.requests, async_requests=usage.async_requests,
        model=model, job_id=finish_job_id(str(record["id"])))


async def record_audit(redis: Any, settings: Settings, record: dict[str, Any], now: float | None = None) -> bool:
    """Append the audit's entry unless it is there already (a finishing job run again); True when written now."""
    at = time.time() if now is None else now
    return await Ledger(redis, settings.ledger_days).record_once(audit_entry(record, settings, at), now=at,
                                                               once=ledger_once(str(record['id'])),
                                                               ttl_s=TTL_S)
