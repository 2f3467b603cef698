"""The audit's one private draft repository security advisory: where a public repository's code scanning refuses
the upload, its findings are kept there (admins and the advisory's collaborators see a draft), never in an issue."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from reviewbot.audit.findings import AuditFinding
from reviewbot.audit.tracking import read_tracking, tracking_body

AdvisorySeverity = Literal["critical", "high", "medium", "low"]
SUMMARY = "reviewbot security audit: open findings"
# A review's severities in GitHub's advisory scale (an advisory has one severity: its most severe finding's).
ADVISORY_SEVERITY: dict[str, AdvisorySeverity] = {"critical": "critical", "major": "high", "minor": "medium",
                                                  "nit": "low"}
MAX_CWE_IDS = 20  # the findings' classes, most frequent first; the description counts every one


@dataclass(frozen=True)
class AdvisoryDraft:
    """The fields of the draft advisory (the port's AdvisoryFields)."""

    summary: str
    description: str  # the tracking text, ending with the signed marker that finds the advisory again
    severity: AdvisorySeverity
    cwe_ids: tuple[str, ...]
    package: str


class Advisory(Protocol):
    """A draft advisory as the port reads it back."""

    @property
    def ghsa_id(self) -> str: ...

    @property
    def description(self) -> str: ...


class AdvisoryPort(Protocol):
    """What the advisory needs of GitHubPort (its advisories mixin)."""

    async def create_advisory(self, repo: str, draft: AdvisoryDraft) -> Advisory: ...

    async def update_advisory(self, repo: str, ghsa_id: str, draft: AdvisoryDraft) -> Advisory: ...

    async def draft_advisories(self, repo: str) -> Sequence[Advisory]: ...


def advisory_draft(repo: str, findings: Sequence[AuditFinding], *, category: str, commit_sha: str,
                   cost_usd: float, reason: str, remembered: dict[str, list[str]] | None,
                   key: bytes) -> tuple[AdvisoryDraft, int]:
    """The advisory's fields after this audit (the tracking issue's text and signed marker, read by admins only),
    and how many findings are new since the last audit of the category."""
    description, new = tracking_body(findings, category=category, commit_sha=commit_sha, cost_usd=cost_usd,
                                     reason=reason, remembered=remembered, key=key, kept_in="draft advisory")
    worst = min((f.rank for f in findings), default=None)
    severity = ADVISORY_SEVERITY[next(f.severity for f in findings if f.rank == worst)] if worst else "low"
    counts: dict[str, int] = {}
    for f in findings:
        if f.cwe:
            counts[f.cwe] = counts.get(f.cwe, 0) + 1
    cwe_ids = tuple(sorted(counts, key=lambda c: (-counts[c], c))[:MAX_CWE_IDS])
    summary = f"{SUMMARY} ({len(findings)})"
    return AdvisoryDraft(summary=summary, description=description, severity=severity, cwe_ids=cwe_ids,
                         package=repo.split("/", 1)[-1]), new


async def update_advisory(port: AdvisoryPort, repo: str, findings: Sequence[AuditFinding], *, category: str,
                          commit_sha: str, cost_usd: float, reason: str, key: bytes) -> tuple[str, int] | None:
    """Edit the App's draft advisory (the newest draft whose description carries a valid signed marker), or create
    it when there is something to keep. Returns (GHSA id, new findings), or None when there is nothing to write.
    AdvisoriesUnavailable when the installation has not been granted `repository_advisories`."""
    ours: tuple[Advisory, dict[str, list[str]]] | None = None
    for advisory in await port.draft_advisories(repo):
        if (remembered := read_tracking(advisory.description, key)) is not None:
            ours = (advisory, remembered)
            break
    if ours is None and not findings:  # nothing open and nothing kept before: no advisory to start
        return None
    draft, new = advisory_draft(repo, findings, category=category, commit_sha=commit_sha, cost_usd=cost_usd,
                                reason=reason, remembered=ours[1] if ours else None, key=key)
    if ours is None:
        return (await port.create_advisory(repo, draft)).ghsa_id, new
    await port.update_advisory(repo, ours[0].ghsa_id, draft)
    return ours[0].ghsa_id, new
