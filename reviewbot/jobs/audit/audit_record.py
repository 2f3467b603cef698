"""Where a finished audit's findings go: the audit record (read by `reviewbot audit status` and the dashboard) and
one SARIF upload to GitHub code scanning, or, where code scanning is not available, the repository's tracking
issue; what the record says about it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from reviewbot.audit.disclosure import ENABLE_ADVISORY, ENABLE_CODE_SCANNING, finding_key, is_public
from reviewbot.audit.dismissed import dismissed_in_code_scanning
from reviewbot.audit.findings import AuditFinding, from_finding
from reviewbot.audit.publish import AuditPort, branch_ref, publish_audit
from reviewbot.audit.sarif import audit_category
from reviewbot.audit.service_record import AuditRecord, FindingJson, Publication
from reviewbot.audit.service_state import AuditStore
from reviewbot.jobs.audit.audit_target import category_branch, keeps_baseline
from reviewbot.jobs.audit.unread import unread_notes
from reviewbot.review.findings.dismissals import Learning
from reviewbot.review.findings.schema import Finding


def audit_findings(findings: list[FindingJson], read: Callable[[str], str | None]) -> list[AuditFinding]:
    """The record's findings (the review model's dicts) as published findings, fingerprinted from the code at the
    audited commit, so an alert keeps its identity across audits."""
    texts: dict[str, list[str] | None] = {}
    found = []
    for data in findings:
        finding = Finding.model_validate(data)
        if finding.path not in texts:
            text = read(finding.path)
            texts[finding.path] = text.splitlines() if text is not None else None
        found.append(from_finding(finding, lines=texts[finding.path]))
    return found


def with_findings(record: AuditRecord, findings: list[FindingJson]) -> AuditRecord:
    """The record with every finding of the audit, carried-forward ones included (the complete picture for its
    category: GitHub closes the alerts it no longer contains), and that category: the branch's one."""
    return dataclasses.replace(record, findings=findings,
                               category=audit_category(category_branch(record)))


async def publish(port: AuditPort, store: AuditStore, record: AuditRecord, *, read: Callable[[str], str | None],
                  bot_login: str, key: bytes, learnings: Sequence[Learning] = ()) -> Publication:
    """The record's findings (`with_findings`) in its category; returns the record's `publication`. `learnings`:
    the repository's; alerts dismissed in code scanning hold their findings back (`dismissed_in_code_scanning`)."""
    kept, held = dismissed_in_code_scanning(audit_findings(record.findings, read), learnings, read)
    done = await publish_audit(port, record.repo, kept, dismissed=held, category=record.category,
                               commit_sha=record.sha, ref=branch_ref(record.branch), bot_login=bot_login,
                               key=key, cost_usd=float(record.spent_usd or 0),
                               tracking_issue=await store.tracking_issue(record.repo),
                               tracking=keeps_baseline(record),  # a pull request's findings: its answer only
                               public=is_public(record.visibility), not_audited=unread_notes(record))
    if done.issue_number is not None:
        await store.remember_tracking_issue(record.repo, done.issue_number)
    return Publication(where=done.where, results=done.results, sarif_id=done.sarif_id,
                       issue_number=done.issue_number, new=done.new, cut=list(done.cut), reason=done.reason,
                       status="processing" if done.where == "code-scanning" else "edited", errors=[],
                       advisory_id=done.advisory_id,
                       dismissed=[finding_key(f.path, f.end_line) for f in held])


def published_text(publication: Publication | None, issue_url: str = "") -> str:
    """Where the results are, for the answer comment, `reviewbot audit status` and the dashboard; `issue_url`: the
    tracking issue as a Markdown link (the answer comment), else its number as text."""
    if publication is None:
        return "the audit record (`reviewbot audit status` and the dashboard)"
    if publication.where == "issue":
        number = f"#{publication.issue_number}"
        return (f"code scanning is not available here ({publication.reason}): tracking issue "
                f"{f'[{number}]({issue_url})' if issue_url else number} ({publication.new} new)")
    if publication.where == "comment":
        return (f"code scanning is not available here ({publication.reason}): the findings above (a pull "
                "request's audit leaves the repository's tracking issue to the default branch)")
    if publication.where == "advisory":  # no link: the draft's address names nothing, but only its readers open it
        return (f"code scanning is not available here ({publication.reason}), and this repository is public: "
                f"the findings are kept in the repository's private draft security advisory, which only admins "
                f"and its collaborators see ({publication.new} new); to have them in code scanning, "
                f"{ENABLE_CODE_SCANNING}")
    if publication.where == "withheld":
        return (f"code scanning is not available here ({publication.reason}), and this repository is public, so "
                f"the findings are not published anywhere its readers would see them; to fix this, "
                f"{ENABLE_CODE_SCANNING}; {ENABLE_ADVISORY}")
    if publication.where == "none":
        return f"the audit record only: publishing failed ({'; '.join(publication.errors)})"
    alerts = f"{publication.results} alert(s)"
    cut = f"; left out by GitHub's limits: {'; '.join(publication.cut)}" if publication.cut else ""
    if publication.status == "complete":
        return f"published to code scanning: {alerts}{cut}"
    if publication.status == "failed":
        return f"code scanning could not process the upload of {alerts}: {'; '.join(publication.errors)}"
    return f"uploaded to code scanning: {alerts}, being processed{cut}"
