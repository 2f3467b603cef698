"""`audit: {autofix: open-prs}`: after a branch's audit, its new critical findings get fix pull requests by
themselves, through the audit-fix job stored once per audit (and each finding's pull request opened once)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from reviewbot.audit.disclosure import is_public
from reviewbot.audit.service_record import AuditRecord, FindingJson
from reviewbot.audit.service_state import AuditStore
from reviewbot.jobs.audit.audit_record import audit_findings
from reviewbot.jobs.audit.audit_target import keeps_baseline
from reviewbot.queue.enqueue import Stored, store_job
from reviewbot.queue.functions import AUDIT_FIX_FUNCTION
from reviewbot.review.findings.fingerprints import normalize_title
from reviewbot.state import keys

AUTOFIX_RUN = "autofix"


async def enqueue_audit_fix(redis: Any, record: AuditRecord, selectors: Sequence[str], author: str,
                            asked_in: int, *, run: str = "") -> Stored:
    """Stored unless the same selection (or `run`) of the same audit is queued or ran: asking twice costs nothing."""
    chosen = run or " ".join(selectors) or "all"
    return await store_job(redis, AUDIT_FIX_FUNCTION, (record.installation_id, record.repo, record.id,
                                                       list(selectors), author, asked_in), {},
                           keys.audit_fix_job_id(record.id, chosen))


def wants_autofix(record: AuditRecord, fixes: str) -> bool:
    """`audit: {autofix: open-prs}`, a branch's audit (not a pull request's), a private or internal repository
    (a public one's new findings are never named in a pull request), and fix pull requests on (REVIEWBOT_FIXES)."""
    audit = record.config.get("audit") or {}
    return (audit.get("autofix") == "open-prs" and keeps_baseline(record) and not is_public(record.visibility)
            and fixes == "push")


async def new_critical(store: AuditStore, record: AuditRecord, read: Callable[[str], str | None]) -> list[str]:
    """`fp:<fingerprint>` of each verified critical finding the branch's last audit did not have (read before this
    audit's files are remembered; carried-forward findings are old by definition)."""
    baseline = await store.baseline(record.repo, record.base_branch or record.branch)
    before = {_place(f) for entry in baseline.values() for f in entry.get("findings") or []}
    before |= {_place(f) for f in record.carried}
    new = [f for f in record.findings
           if f.get("severity") == "critical" and not f.get("unverified") and _place(f) not in before]
    return [f"fp:{a.fingerprint}" for a in audit_findings(new, read)]


def _place(finding: FindingJson) -> tuple[str, str, str]:
    return str(finding.get("path")), str(finding.get("cwe") or ""), normalize_title(str(finding.get("title") or ""))
