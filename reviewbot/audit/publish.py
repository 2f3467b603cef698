"""Where an audit's findings go: one SARIF upload to GitHub code scanning, or, where code scanning is not
available, the repository's one tracking issue (created once, then edited); on a public repository never an
issue: its one private draft security advisory, or nowhere but the audit record."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from reviewbot.audit.advisory import AdvisoryPort, update_advisory
from reviewbot.audit.findings import AuditFinding
from reviewbot.audit.sarif import GITHUB_LIMITS, Limits, build_sarif, encode_sarif
from reviewbot.audit.tracking_issue import IssuePort, update_tracking_issue
from reviewbot.errors import AdvisoriesUnavailable, CodeScanningUnavailable

log = logging.getLogger(__name__)


class AuditPort(IssuePort, AdvisoryPort, Protocol):
    """What publishing needs of GitHubPort (its code-scanning, issue and advisory mixins)."""

    async def upload_sarif(self, repo: str, commit_sha: str, ref: str, sarif_gz_b64: str, *,
                           tool_name: str = ...) -> str: ...


@dataclass(frozen=True)
class Published:
    """Where the findings went: a SARIF upload to poll (`sarif_id`), the tracking issue (`issue_number`), or a
    public repository's draft advisory (`advisory_id`)."""

    # comment: only the caller's answer shows them; advisory: the private draft advisory; withheld: a public
    # repository's refused upload without advisories, so only the audit record keeps them
    where: Literal["code-scanning", "issue", "comment", "advisory", "withheld"]
    results: int
    sarif_id: str | None = None
    issue_number: int | None = None
    new: int = 0  # findings new since the last audit of this scope (tracking issue only)
    cut: tuple[str, ...] = ()
    reason: str = ""  # why code scanning was not used
    advisory_id: str | None = None


def branch_ref(branch: str) -> str:
    """The `ref` of an upload for a branch (GitHub also takes refs/tags/… and refs/pull/N/head|merge)."""
    return branch if branch.startswith("refs/") else f"refs/heads/{branch}"


async def publish_audit(port: AuditPort, repo: str, findings: Sequence[AuditFinding], *, category: str,
                        commit_sha: str, ref: str, bot_login: str, key: bytes, cost_usd: float = 0.0,
                        repo_url: str | None = None, tracking_issue: int | None = None, tracking: bool = True,
                        public: bool = False, limits: Limits = GITHUB_LIMITS,
                        not_audited: Sequence[str] = (), dismissed: Sequence[AuditFinding] = ()) -> Published:
    """Upload the complete picture of one audit (carried-forward findings included); on CodeScanningUnavailable,
    edit the tracking issue instead (`tracking_issue`: its number if the caller remembers it from an earlier
    audit; it is checked, and looked up among the App's issues when absent or not ours; `tracking=False`: no
    tracking issue, the caller shows the findings). The caller polls a SARIF upload with `check_processed`, and
    may remember `Published.issue_number`. `public`: the repository's readers are not the Security tab's, so a
    refused upload goes to the private draft advisory (branch audits) or stays in the record, never an issue.
    `not_audited`: what the audit did not read, in words (the SARIF run is then marked partial). `dismissed`:
    findings whose alerts people dismissed in code scanning: uploaded (GitHub keeps those alerts dismissed, where
    leaving them out would close them as fixed), counted and written nowhere else."""
    branch = ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None
    sarif = build_sarif([*findings, *dismissed], category=category, commit_sha=commit_sha, repo_url=repo_url,
                        branch=branch, limits=limits, not_audited=not_audited)
    try:
        sarif_id = await port.upload_sarif(repo, commit_sha, ref, encode_sarif(sarif.document))
    except CodeScanningUnavailable as exc:
        log.info("code scanning is not available", extra={"repo": repo, "error": str(exc), "public": public})
        reason = _reason(exc)  # in words a reader acts on (GitHub's full answer is in the log)
        if public:
            return await _in_private(port, repo, findings, category=category, commit_sha=commit_sha, key=key,
                                     cost_usd=cost_usd, reason=reason, branch=tracking)
        if not tracking:  # `tracking=False`: the tracking issue is the default branch's picture, not this one's
            return Published("comment", len(findings), reason=reason)
        number, new = await update_tracking_issue(port, repo, findings, category=category, commit_sha=commit_sha,
                                                  bot_login=bot_login, key=key, cost_usd=cost_usd,
                                                  reason=reason, known=tracking_issue)
        return Published("issue", len(findings), issue_number=number, new=new, reason=reason)
    return Published("code-scanning", max(0, sarif.results - len(dismissed)), sarif_id=sarif_id, cut=sarif.cut)


async def _in_private(port: AuditPort, repo: str, findings: Sequence[AuditFinding], *, category: str,
                      commit_sha: str, key: bytes, cost_usd: float, reason: str, branch: bool) -> Published:
    """A public repository's refused upload: a branch's findings into the one draft advisory where the installation
    may write one; else (or a pull request's audit, whose code is not the branch's) nowhere anyone else reads."""
    if not branch:
        return Published("withheld", len(findings), reason=reason)
    try:
        kept = await update_advisory(port, repo, findings, category=category, commit_sha=commit_sha,
                                     cost_usd=cost_usd, reason=reason, key=key)
    except AdvisoriesUnavailable as exc:
        log.info("no repository_advisories permission; findings withheld", extra={"repo": repo, "error": str(exc)})
        return Published("withheld", len(findings), reason=reason)
    if kept is None:
        return Published("withheld", 0, reason=reason)
    return Published("advisory", len(findings), advisory_id=kept[0], new=kept[1], reason=reason)


def _reason(exc: CodeScanningUnavailable) -> str:
    text = str(exc)
    return "GitHub Code Security or Advanced Security is not enabled" if "not enabled" in text else \
        "the App has not been granted the security_events permission"
