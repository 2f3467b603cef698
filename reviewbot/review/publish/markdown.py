"""Markdown for comments, the review body and the check run; user-controlled text is neutralised."""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass, field

from reviewbot.model import Usage
from reviewbot.review.findings.anchoring import Anchored, Placement
from reviewbot.review.findings.schema import FileNote, Finding
from reviewbot.review.findings.security import security_section
from reviewbot.review.findings.verification import Checks
from reviewbot.review.prompt.coverage import Coverage, coverage_line, render_coverage
from reviewbot.review.publish.redaction import redact

MAX_BODY = 60_000  # GitHub allows 65,536; room for the marker and truncation note
BADGE = {"critical": "🔴 **Critical**", "major": "🟠 **Major**", "minor": "🟡 **Minor**", "nit": "⚪ **Nit**"}
_CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.DOTALL)
_MENTION = re.compile(r"(?<![\w@`])@(?=[A-Za-z0-9])")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)]*)\)")


def neutralize(text: str) -> str:
    """No @-mentions, no images, no raw HTML outside code, no secret-looking strings anywhere; code spans and
    blocks otherwise stay as written."""
    parts = _CODE.split(redact(text))
    for i in range(0, len(parts), 2):  # even indexes are prose, odd ones are code
        prose = _IMAGE.sub(lambda m: f"[image: {m.group(1) or 'link'}]", parts[i])
        prose = prose.replace("<", "&lt;").replace(">", "&gt;")
        parts[i] = _MENTION.sub("@\u200d", prose)
    return "".join(parts)


def fence(code: str, info: str = "") -> str:
    """A fenced block whose fence is longer than any backtick run inside the code."""
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{code.rstrip(chr(10))}\n{ticks}"


def code_span(text: str) -> str:
    """Inline code nothing can break out of (names from the diff or the model): one line, a fence longer than
    any backtick run inside, no secrets."""
    line = " ".join(redact(text).split())[:300]
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", line)), default=0) + 1)
    pad = " " if line.startswith("`") or line.endswith("`") else ""
    return f"{ticks}{pad}{line}{pad}{ticks}"


def comment_body(anchored: Anchored, *, suggestion_ok: bool = False, marker: str = "") -> str:
    f = anchored.finding
    tag = f" · {f.cwe}" if f.cwe else ""  # security findings carry their CWE id
    text = f"{BADGE[f.severity]} · {f.category}{tag} · **{neutralize(f.title)}**\n\n{neutralize(f.body)}"
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


@dataclass(frozen=True)
class Links:
    """Blob URLs for links to lines outside the diff (head for RIGHT, base for LEFT)."""

    head: str = ""
    base: str = ""

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


def review_body(report: ReviewReport, notes: BodyNotes | None = None) -> str:
    notes = notes or BodyNotes()
    lines = ["### reviewbot", "", neutralize(report.summary.strip() or "No summary."), ""]
    count = len(report.placement.inline)
    lines.append(f"{count} inline comment{'s' if count != 1 else ''}." if count > 0 else "No inline comments.")
    lines += _notes(notes)
    lines += checks_lines(report.checks) if report.checks is not None else []
    if report.walkthrough:
        lines += ["", "<details><summary>Walkthrough</summary>", "", "| File | What changed |", "|---|---|"]
        lines += [f"| {_cell(code_span(n.path))} | {_cell(neutralize(n.summary))} |" for n in report.walkthrough]
        lines += ["", "</details>"]
    if notes.overflow:
        lines += ["", "#### More findings", ""]
        lines += [_finding_line(f, notes.links) for f in notes.overflow]
    if report.placement.outside:
        lines += ["", "#### Outside the diff", ""]
        lines += [_finding_line(f, notes.links) for f in report.placement.outside]
    if notes.config_errors:
        lines += ["", "#### Configuration problems (defaults used)", ""]
        lines += [f"- {neutralize(e)}" for e in notes.config_errors]
    if notes.unseen:
        lines += ["", f"**Not reviewed**: GitHub did not show {len(notes.unseen)} file(s): "
                  + ", ".join(code_span(p) for p in notes.unseen[:20])]
    shown = [a.finding for a in report.placement.inline] + list(report.placement.outside) + list(notes.overflow)
    lines += security_section(shown, report.security)
    if report.coverage is not None:  # context engine: what was reviewed, skipped and why
        lines += ["", render_coverage(report.coverage)]
    lines += ["", footer(report)]
    return _bounded("\n".join(lines)) + (f"\n{notes.marker}" if notes.marker else "")


def _notes(notes: BodyNotes) -> list[str]:
    said = []
    if notes.repeated:
        said.append(f"{notes.repeated} finding(s) already open on this pull request were not repeated")
    if notes.dismissed:
        said.append(f"{notes.dismissed} finding(s) were held back by remembered dismissals "
                    "(`reviewbot learnings list` shows them)")
    if notes.earlier_code:
        said.append(f"{notes.earlier_code} finding(s) on code reviewed before were left out (incremental review)")
    if notes.below_threshold:
        said.append(f"{notes.below_threshold} finding(s) below the severity threshold were left out")
    return [f"<sub>{'; '.join(said)}.</sub>"] if said else []


# --- precision policy

def checks_lines(checks: Checks) -> list[str]:
    """The summary's account of the precision policy: what was checked, confirmed, downgraded and dropped."""
    said = []
    if checks.passes > 1:
        said.append(f"{checks.passes} independent review passes, {checks.merged} duplicate finding(s) merged")
    if checks.checked:
        said.append(f"{checks.checked} candidate finding(s) checked by a second request: {checks.confirmed} "
                    f"confirmed, {checks.downgraded} downgraded")
    dropped = len(checks.dropped)
    if dropped:
        said.append(f"{dropped} candidate finding{'s were' if dropped != 1 else ' was'} checked and dropped")
    if checks.unchecked:
        said.append(f"{len(checks.unchecked)} candidate finding(s) could not be checked (the verification answer "
                    "was unusable) and were left out")
    if not said:
        return []
    lines = [f"<sub>{'; '.join(said)}.</sub>"]
    if checks.dropped or checks.unchecked:
        lines += ["", "<details><summary>Dropped after verification</summary>", ""]
        lines += [f"- **{neutralize(title)}**: {neutralize(reason) or 'refuted'}" for title, reason
                  in checks.dropped[:30]]
        lines += [f"- **{neutralize(title)}**: not checked" for title in checks.unchecked[:30]]
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
    return f"- {BADGE[f.severity]} {where}: **{neutralize(f.title)}**{tag}. {neutralize(f.body)}"


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())[:300]


def check_title(report: ReviewReport) -> str:
    total = len(report.placement.inline) + len(report.placement.outside)
    return "No findings" if total == 0 else f"{total} finding{'s' if total != 1 else ''}"


def _bounded(text: str) -> str:
    if len(text) <= MAX_BODY:
        return text
    return text[:MAX_BODY] + "\n\n…(truncated)"
