"""Which audit findings a fix is for, pure: the selection (`all`, CWE ids, alert numbers, new critical ones), one
group per finding or per file, their fix branch, and the fix pull request's words (private repositories only)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from reviewbot.audit.disclosure import security_tab_url, severity_counts
from reviewbot.audit.findings import AuditFinding
from reviewbot.fixes.target import FixTarget
from reviewbot.review.findings.cwe import normalize_cwe
from reviewbot.review.findings.fingerprints import normalize_title
from reviewbot.review.publish.autolinks import unreferenced
from reviewbot.review.publish.markdown import BADGE, code_span, neutralize, neutralize_inline, plain

BRANCH_PREFIX = "reviewbot/fix/"
MAX_GROUPS = 10  # fix pull requests one request opens


@dataclass(frozen=True)
class FixGroup:
    """The findings one fix pull request is for (one finding, or one file's), and its identity."""

    findings: tuple[AuditFinding, ...]

    @property
    def key(self) -> str:
        """The finding's fingerprint, or (per file) a digest of the file's: the branch's and the once key's name."""
        if len(self.findings) == 1:
            return self.findings[0].fingerprint
        joined = "\x1f".join(sorted(f.fingerprint for f in self.findings))
        return hashlib.sha256(joined.encode()).hexdigest()[:16]

    @property
    def branch(self) -> str:
        return BRANCH_PREFIX + self.key[:12]

    @property
    def targets(self) -> list[FixTarget]:
        return [fix_target(f) for f in self.findings]


def fix_target(finding: AuditFinding) -> FixTarget:
    """An audit finding as the fix core's target: the files its evidence names may change with it."""
    also = tuple(dict.fromkeys(e.path for e in finding.evidence if e.path != finding.path))
    return FixTarget(fingerprint=finding.fingerprint, path=finding.path, start=finding.start_line,
                     end=finding.end_line, severity=finding.severity, category="security", title=finding.title,
                     body=finding.body[:4_000], cwe=finding.cwe or "", also=also)


def select(findings: Sequence[AuditFinding], selectors: Sequence[str],
           alerts: Mapping[int, AuditFinding]) -> list[AuditFinding]:
    """Verified findings only (an unverified one may be wrong). No selector or `all`: every one; `CWE-89`: its
    class; `#12`: the finding of code-scanning alert 12 (`alerts`); `fp:<fingerprint>`: that finding (autofix)."""
    verified = [f for f in findings if f.verified]
    if not selectors or "all" in selectors:
        return sorted(verified, key=lambda f: f.rank)
    picked: dict[str, AuditFinding] = {}
    for selector in selectors:
        if selector.startswith("CWE-"):
            picked |= {f.fingerprint: f for f in verified if f.cwe == selector}
        elif selector.startswith("fp:"):
            picked |= {f.fingerprint: f for f in verified if f.fingerprint == selector[3:]}
        elif selector.startswith("#") and (found := alerts.get(int(selector[1:]))) is not None and found.verified:
            picked[found.fingerprint] = found
    return sorted(picked.values(), key=lambda f: f.rank)


def finding_at(findings: Sequence[AuditFinding], path: str, line: int) -> AuditFinding | None:
    """The finding an alert points at: its file, the line within the finding's range (most severe first)."""
    return next((f for f in sorted(findings, key=lambda f: f.rank)
                 if f.path == path and f.start_line <= line <= f.end_line), None)


def groups(findings: Sequence[AuditFinding], per: str) -> list[FixGroup]:
    """One group per finding, or per file (`per == "file"`), most severe first, at most MAX_GROUPS."""
    ranked = sorted(findings, key=lambda f: f.rank)
    if per != "file":
        return [FixGroup((f,)) for f in ranked][:MAX_GROUPS]
    by_file: dict[str, list[AuditFinding]] = {}
    for f in ranked:
        by_file.setdefault(f.path, []).append(f)
    return [FixGroup(tuple(fs)) for fs in by_file.values()][:MAX_GROUPS]


def still_reported(group: FixGroup, reported: Iterable[tuple[str, str | None, str]]) -> bool:
    """Whether a re-audit's findings (path, CWE, title) still report one of the group's: same file and the same
    CWE, or (without one) the same title."""
    for path, cwe, title in reported:
        for f in group.findings:
            same_class = bool(f.cwe) and normalize_cwe(cwe) == f.cwe
            if path == f.path and (same_class or normalize_title(title) == normalize_title(f.title)):
                return True
    return False


def pull_title(group: FixGroup) -> str:
    if len(group.findings) == 1:
        title = f"Fix: {unreferenced(plain(' '.join(group.findings[0].title.split())))}"
    else:
        title = f"Fix {len(group.findings)} security findings in {group.findings[0].path}"
    return title if len(title) <= 120 else title[:119] + "…"


def pull_body(group: FixGroup, explanation: str, *, repo_url: str, alert_numbers: Mapping[str, int],
              tracking_issue: int | None, asked_in: int | None) -> str:
    """A private repository's fix pull request: what it fixes (linked to its code-scanning alert, or the tracking
    issue), why, how it was checked, and that its CI is the test."""
    lines = ["reviewbot wrote this change for the security audit's findings below and checked it before opening "
             "this pull request: the edits apply to the audited commit, every changed file still parses, the "
             "change stays within the findings' files, writes no secret, a second model request confirmed that "
             "it fixes them, and an audit of the changed files no longer reports them.", ""]
    for f in group.findings:
        number = alert_numbers.get(f.fingerprint)
        if number is not None:
            where = f"code-scanning alert [#{number}]({repo_url.rstrip('/')}/security/code-scanning/{number})"
        elif tracking_issue:
            where = f"tracking issue #{tracking_issue}"
        else:
            where = f"[the Security tab]({security_tab_url(repo_url)})"
        cwe = f" ({f.cwe})" if f.cwe else ""
        lines.append(f"- {BADGE[f.severity]}{cwe} {code_span(f.path)} line {f.start_line}: "
                     f"**{neutralize_inline(unreferenced(f.title))}**, {where}")
    if explanation.strip():
        lines += ["", neutralize(unreferenced(" ".join(explanation.split())[:1_500]))]
    lines += ["", "reviewbot runs none of this repository's code: this pull request's own checks are the test. "
              + (f"Their result is reported on #{asked_in}." if asked_in else "Their result is reported here."),
              "Once merged, the next audit of the branch closes the alert."]
    return "\n".join(lines)


def public_refusal(findings: Sequence[AuditFinding]) -> str:
    """A public repository: no fix pull request for an undisclosed vulnerability; counts only, as disclosure.py."""
    counts = severity_counts(f.severity for f in findings) or "no finding"
    return ("No fix pull request was opened: this repository is public, and a pull request would describe an "
            f"undisclosed vulnerability to everyone who can read it ({counts}). Fix it privately: the findings "
            "are on the Security tab (people with write access) or in the repository's private draft security "
            "advisory (admins), and a fix can be prepared in the advisory's temporary private fork.")
