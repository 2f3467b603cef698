"""Asking for audit fixes: `@app fix` in an issue finds the repository's latest finished branch audit and stores
its fix job once per selection; the alerts it names (`#12`) read back as the audit's findings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from reviewbot.audit.findings import AuditFinding
from reviewbot.audit.fix_select import finding_at
from reviewbot.audit.service_record import AuditRecord
from reviewbot.audit.service_state import AuditStore
from reviewbot.jobs.audit.audit_target import keeps_baseline
from reviewbot.jobs.audit.autofix import enqueue_audit_fix
from reviewbot.review.findings.alerts import TOOL_NAME

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort

RECENT = 200  # audits looked through for the repository's latest (the index lists every repository's)


async def latest_audit(redis: Any, repo: str, number: int) -> AuditRecord | None:
    """The newest finished audit of a branch of `repo`, preferring one answered in issue `number` or tracked there."""
    done = [a.record for a in await AuditStore(redis).recent(RECENT)
            if a.record.repo.lower() == repo.lower() and a.record.status == "done" and keeps_baseline(a.record)]
    here = [r for r in done if number in (r.number, r.publication.issue_number if r.publication else None)]
    found = here or done
    return found[0] if found else None


async def ask_audit_fix(port: GitHubPort, redis: Any, installation_id: int, repo: str, number: int, author: str,
                        selectors: Sequence[str]) -> dict[str, Any]:
    """The command's part (its permission was checked as for any command): the job does the rest."""
    record = await latest_audit(redis, repo, number)
    if record is None or record.installation_id != installation_id:
        await port.create_issue_comment(repo, number, "There is no finished audit of this repository to fix: "
                                                      "ask for one first (`audit`).")
        return {"outcome": "no audit"}
    stored = await enqueue_audit_fix(redis, record, selectors, author, number)
    return {"outcome": stored, "audit": record.id}


async def alert_findings(port: GitHubPort, repo: str, selectors: Sequence[str],
                         findings: Sequence[AuditFinding]) -> dict[int, AuditFinding]:
    """The findings of the alerts named (`#12`): reviewbot's own alerts, matched to the record by place."""
    found: dict[int, AuditFinding] = {}
    for selector in selectors:
        if selector.startswith("#"):
            place = await port.alert_place(repo, int(selector[1:]))
            finding = finding_at(findings, place.path, place.start_line) if place is not None else None
            if place is not None and place.tool == TOOL_NAME and finding is not None:
                found[place.number] = finding
    return found
