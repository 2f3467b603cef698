"""Markdown for comments, the review body and the check run; untrusted text is rebuilt by a real parser."""

from __future__ import annotations

import re
import urllib.parse
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from reviewbot.model import Usage
from reviewbot.review.findings.anchoring import Anchored, Placement
from reviewbot.review.findings.schema import SEVERITY_RANK, FileNote, Finding, IssueVerdict
from reviewbot.review.findings.security import security_section
from reviewbot.review.findings.verification import Checks
from reviewbot.review.prompt.coverage import Coverage, coverage_line, render_coverage
from reviewbot.review.publish.cutting import bounded
from reviewbot.review.publish.fences import fence
from reviewbot.review.publish.issuelines import issue_lines
from reviewbot.review.publish.redaction import redact
from reviewbot.review.publish.safemd import LinkPolicy, safe_inline, safe_markdown

__all__ = ["LinkPolicy", "fence"]
MAX_BODY = 60_000  # GitHub allows 65,536; room for the marker and truncation note
BADGE = {"critical": "🔴 **Critical**", "major": "🟠 **Major**", "minor": "🟡 **Minor**", "nit": "⚪ **Nit**"}
UNVERIFIED = "**unverified**"  # the one word on a finding whose verification could not run


def neutralize(text: str, policy: LinkPolicy | None = None) -> str:
    """Untrusted Markdown (the model's, echoing the PR's) parsed and rebuilt: no images, no raw HTML, no links
    outside the repository, no @-mentions outside code, no secret-looking strings anywhere."""
    return safe_markdown(redact(text), policy)


def plain(text: str) -> str:
    """Text GitHub shows as is (check-run annotations): no secrets, no pings; Markdown would only show escapes."""
    return re.sub(r"(?<!\w)@(?=[A-Za-z0-9])", "@\u200d", redact(text))


def neutralize_inline(text: str, policy: LinkPolicy | None = None) -> str:
    """The same, on one line: titles, list items, table cells."""
    return safe_inline(redact(text), policy)


def code_span(text: str) -> str:
    """Inline code nothing can break out of (names from the diff or the model): one line, a fence longer than
    any backtick run inside, no secrets."""
    line = " ".join(redact(text).split())[:300]
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", line)), default=0) + 1)
    pad = " " if line.startswith("`") or line.endswith("`") else ""
    return f"{ticks}{pad}{line}{pad}{ticks}"


def comment_body(anchored: Anchored, *, suggestion_ok: bool = False, marker: str = "",
                 policy: LinkPolicy | None = None) -> str:
    f = anchored.finding
    tag = f" · {f.cwe}" if f.cwe else ""  # security findings carry their CWE id
    label = f" · {UNVERIFIED}" if f.unverified else ""
    text = (f"{BADGE[f.severity]} · {f.category}{tag}{label} · **{neutralize_inline(f.title, policy)}**\n\n"
            f"{neutralize(f.body, policy)}")
    if f.unverified:
        text += "\n\n<sub>Unverified: the second look that checks findings could not run for this one.</sub>"
    if anchored.snapped_from is not None:
        text += f"\n\n<sub>This is about line {anchored.snapped_from}, just outside the changed lines.</sub>"
    if f.suggestion is not None:
        code = redact(f.suggestion)  # a suggestion that would commit a secret is shown redacted, not offered
        text += "\n\n" + fence(code, "suggestion" if suggestion_ok and code == f.suggestion else "")
    return _bounded(text) + (f"\n{marker}" if marker else "")


@dataclass(frozen=True)
class ReviewReport:
    """Everything the summary needs, gathered by the engine."""

    summary: str
    placement: Placement
    usage: Usage
    model: str
    files_reviewed: int
    skipped: tuple[str, ...] = ()
    walkthrough: tuple[FileNote, ...] = ()
    coverage: Coverage | None = None  # what the review saw and skipped (context engine)
    checks: Checks | None = None  # precision policy: passes, verification verdicts
    security: bool = False  # security mode: the summary lists CWE → count
    issues: tuple[IssueVerdict, ...] = ()  # the model's word on each linked issue it was shown
    repo: str = ""  # owner/name, to know `#12` from another repository's issue
    # A public repository: everyone reads this thread, so in a security review findings on code the pull request
    # does not change (which GitHub would show writers only, as code-scanning alerts) are counted, not described,
    # and so are dismissed security findings in any review.
    public: bool = False


@dataclass(frozen=True)
class Links:
    """Blob URLs for links to lines outside the diff (head for RIGHT, base for LEFT)."""

    head: str = ""
    base: str = ""
    repo: str = ""  # the repository's page: links under it may stay links in untrusted text

    @property
    def policy(self) -> LinkPolicy:
        return LinkPolicy(self.repo)

    def line(self, f: Finding) -> str:
        prefix = self.head if f.side == "RIGHT" else self.base
        return f"{prefix}/{urllib.parse.quote(f.path)}#L{f.line}" if prefix else ""


@dataclass(frozen=True)
class BodyNotes:
    """What publishing decided, for the summary: nothing a reader should wonder about is left unsaid."""

    overflow: tuple[Finding, ...] = ()
    repeated: int = 0
    earlier_code: int = 0
    below_threshold: int = 0
    config_errors: tuple[str, ...] = ()
    unseen: tuple[str, ...] = ()
    links: Links = field(default_factory=Links)
    marker: str = ""
    dismissed: int = 0  # held back because the team dismissed them before (threads or configuration)
    held_back: tuple[str, ...] = ()  # the lines that list them: what, where, who, when, how to undo
    alerts: tuple[str, ...] = ()  # code-scanning alerts: findings already open as one, alerts this may fix


def review_body(report: ReviewReport, notes: BodyNotes | None = None) -> str:
    notes = notes or BodyNotes()
    policy = notes.links.policy
    posted = posted_findings(report, notes.overflow)
    lines = ["### reviewbot", "", headline(posted), ""]
    if report.summary.strip() and not (report.security and report.public and report.placement.outside):
        lines += [neutralize(report.summary.strip(), policy), ""]
    elif report.summary.strip():  # the model's prose may describe what the section below only counts
        lines += ["The model's summary is not shown: it may describe findings on code this pull request does not "
                  "change, which a public repository's thread only counts.", ""]
    linked = report.coverage.issues if report.coverage is not None else ()
    for line in issue_lines(report.issues, linked, report.repo, policy):
        lines += [line, ""]
    count = len(report.placement.inline)
    lines.append(f"{count} inline comment{'s' if count != 1 else ''}." if count > 0 else "No inline comments.")
    lines += _notes(notes)
    lines += checks_lines(report.checks, policy) if report.checks is not None else []
    if report.walkthrough:
        lines += ["", "<details><summary>Walkthrough</summary>", "", "| File | What changed |", "|---|---|"]
        lines += [f"| {_cell(code_span(n.path))} | {_cell(neutralize_inline(n.summary, policy))} |"
                  for n in report.walkthrough]
        lines += ["", "</details>"]
    if notes.overflow:
        lines += ["", "#### More findings", ""]
        lines += [_finding_line(f, notes.links) for f in notes.overflow]
    if report.placement.outside:
        lines += ["", "#### Outside the diff", ""]
        lines += _outside(report, notes.links)
    if notes.config_errors:
        lines += ["", "#### Configuration problems (the keys named were ignored)", ""]
        lines += [f"- {neutralize_inline(e, policy)}" for e in notes.config_errors]
    if notes.unseen:
        lines += ["", f"**Not reviewed**: GitHub did not show {len(notes.unseen)} file(s): "
                  + ", ".join(code_span(p) for p in notes.unseen[:20])]
    lines += list(notes.held_back)
    lines += list(notes.alerts)
    lines += security_section([f for f in posted if not _counted_only(report, f)], report.security)
    if report.coverage is not None:  # context engine: what was reviewed, skipped and why
        lines += ["", render_coverage(report.coverage)]
    lines += ["", footer(report)]
    return _bounded("\n".join(lines)) + (f"\n{notes.marker}" if notes.marker else "")


def _counted_only(report: ReviewReport, f: Finding) -> bool:
    return report.security and report.public and f in report.placement.outside


def _outside(report: ReviewReport, links: Links) -> list[str]:
    """The findings outside the diff: described, or, for a security review of a public repository, counted."""
    if not (report.security and report.public):
        return [_finding_line(f, links) for f in report.placement.outside]
    counts = Counter(f.severity for f in report.placement.outside)
    by = ", ".join(f"{counts[s]} {s}" for s in sorted(counts, key=SEVERITY_RANK.__getitem__))
    return [f"{len(report.placement.outside)} finding(s) ({by}) on code this pull request does not change are not "
            "described here: this repository is public, and GitHub shows such findings only to people with write "
            "access (an audit of the default branch puts them in code scanning)."]


def _notes(notes: BodyNotes) -> list[str]:
    said = []
    if notes.repeated:
        said.append(f"{notes.repeated} finding(s) already open on this pull request were not repeated")
    if notes.dismissed:
        said.append(f"{notes.dismissed} finding(s) were held back by remembered dismissals (listed below)")
    if notes.earlier_code:
        said.append(f"{notes.earlier_code} finding(s) on code reviewed before were left out (incremental review)")
    if notes.below_threshold:
        said.append(f"{notes.below_threshold} finding(s) below the severity threshold were left out")
    return [f"<sub>{'; '.join(said)}.</sub>"] if said else []


# --- precision policy

def checks_lines(checks: Checks, policy: LinkPolicy | None = None) -> list[str]:
    """The summary's account of the precision policy: what was checked, confirmed, downgraded and dropped."""
    said = []
    if checks.passes > 1:
        said.append(f"{checks.passes} independent review passes, {checks.merged} duplicate finding(s) merged")
    if checks.failed_passes:
        said.append(f"{checks.failed_passes} extra review pass(es) gave an unusable answer; the other passes' "
                    "findings are kept")
    if checks.checked:
        said.append(f"{checks.checked} candidate finding(s) checked by a second request: {checks.confirmed} "
                    f"confirmed, {checks.downgraded} downgraded")
    dropped = len(checks.dropped)
    if dropped:
        said.append(f"{dropped} candidate finding{'s were' if dropped != 1 else ' was'} checked and dropped")
    if checks.unchecked:
        said.append(f"{len(checks.unchecked)} candidate finding(s) could not be checked (the verification could "
                    f"not run or its answer was unusable) and are posted marked {UNVERIFIED}")
    if not said:
        return []
    lines = [f"<sub>{'; '.join(said)}.</sub>"]
    if checks.dropped:
        lines += ["", "<details><summary>Dropped after verification</summary>", ""]
        lines += [f"- **{neutralize_inline(title, policy)}**: {neutralize_inline(reason, policy) or 'refuted'}"
                  for title, reason in checks.dropped[:30]]
        lines += ["", "</details>"]
    return lines


def footer(report: ReviewReport) -> str:
    u = report.usage
    skipped = f", {len(report.skipped)} context file(s) left out for the budget" if report.skipped else ""
    queued = " · answered through the provider's asynchronous queue" if u.async_requests else ""
    seen = f"{report.files_reviewed} file(s) reviewed{skipped}"
    if report.coverage is not None:
        seen = coverage_line(report.coverage)
    return (f"<sub>{seen} · {u.prompt_tokens:,} prompt tokens "
            f"({u.cache_ratio:.0%} cached) · {u.completion_tokens:,} completion tokens · "
            f"${u.cost_usd:.4f} · `{report.model.replace(chr(96), '')}`{queued}</sub>")


def _finding_line(f: Finding, links: Links) -> str:
    where = f"{code_span(f.path)} line {f.line}"
    url = links.line(f)
    where = f"[{where}]({url})" if url else where
    tag = f" ({f.cwe})" if f.cwe else ""
    label = f" {UNVERIFIED}" if f.unverified else ""
    return (f"- {BADGE[f.severity]}{label} {where}: **{neutralize_inline(f.title, links.policy)}**{tag}. "
            f"{neutralize_inline(f.body, links.policy)}")


def _cell(text: str) -> str:
    """One table cell: every pipe escaped (GitHub's table parser splits cells before it sees code spans)."""
    return bounded(re.sub(r"(?<!\\)\|", r"\\|", " ".join(text.split())), 300, "…")


def posted_findings(report: ReviewReport, overflow: Sequence[Finding] = ()) -> list[Finding]:
    """What this review shows: inline comments, findings outside the diff, and those over the comment cap."""
    return [a.finding for a in report.placement.inline] + list(report.placement.outside) + list(overflow)


def headline(findings: Sequence[Finding]) -> str:
    """The review's first line, counted from what is posted (never the model's own summary sentence)."""
    if not findings:
        return "**No findings.**"
    counts = Counter(f.severity for f in findings)
    by = ", ".join(f"{counts[s]} {s}" for s in sorted(counts, key=SEVERITY_RANK.__getitem__))
    unverified = sum(f.unverified for f in findings)
    tail = f"; {unverified} {UNVERIFIED}" if unverified else ""
    return f"**{len(findings)} finding{'s' if len(findings) != 1 else ''}** ({by}{tail})."


def check_title(findings: Sequence[Finding]) -> str:
    """The check run's title, from the same posted findings as the review's first line."""
    if not findings:
        return "No findings"
    unverified = sum(f.unverified for f in findings)
    tail = f" ({unverified} unverified)" if unverified else ""
    return f"{len(findings)} finding{'s' if len(findings) != 1 else ''}{tail}"


def _bounded(text: str) -> str:
    return bounded(text, MAX_BODY)
