"""Markdown for comments, the review body and the check run; user-controlled text is neutralised."""

from __future__ import annotations

import re
from dataclasses import dataclass

from reviewbot.inference.pricing import Usage
from reviewbot.review.anchor import Anchored, Placement
from reviewbot.review.coverage import Coverage, coverage_line, render_coverage
from reviewbot.review.findings import Finding

MAX_BODY = 60_000  # GitHub allows 65,536; room for the marker and truncation note
BADGE = {"critical": "🔴 **Critical**", "major": "🟠 **Major**", "minor": "🟡 **Minor**", "nit": "⚪ **Nit**"}
_CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.DOTALL)
_MENTION = re.compile(r"(?<![\w@`])@(?=[A-Za-z0-9])")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)]*)\)")


def neutralize(text: str) -> str:
    """No @-mentions, no images, no raw HTML outside code; code spans and blocks stay as written."""
    parts = _CODE.split(text)
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


def comment_body(anchored: Anchored) -> str:
    f = anchored.finding
    text = f"{BADGE[f.severity]} · {f.category} · **{neutralize(f.title)}**\n\n{neutralize(f.body)}"
    if f.suggestion is not None:
        kind = "suggestion" if f.side == "RIGHT" else ""
        text += "\n\n" + fence(f.suggestion, kind)
    return _bounded(text)


@dataclass(frozen=True)
class ReviewReport:
    """Everything the summary needs, gathered by the engine."""

    summary: str
    placement: Placement
    usage: Usage
    model: str
    files_reviewed: int
    skipped: tuple[str, ...] = ()
    coverage: Coverage | None = None  # what the review saw and skipped (context engine)


def review_body(report: ReviewReport) -> str:
    lines = ["### reviewbot", "", neutralize(report.summary.strip() or "No summary."), ""]
    count = len(report.placement.inline)
    lines.append(f"{count} inline comment{'s' if count != 1 else ''}." if count else "No inline comments.")
    if report.placement.outside:
        lines += ["", "#### Outside the diff", ""]
        lines += [_outside_line(f) for f in report.placement.outside]
    if report.coverage is not None:  # context engine: what was reviewed, skipped and why
        lines += ["", render_coverage(report.coverage)]
    lines += ["", footer(report)]
    return _bounded("\n".join(lines))


def footer(report: ReviewReport) -> str:
    u = report.usage
    skipped = f", {len(report.skipped)} context file(s) left out for the budget" if report.skipped else ""
    seen = f"{report.files_reviewed} file(s) reviewed{skipped}"
    if report.coverage is not None:
        seen = coverage_line(report.coverage)
    return (f"<sub>{seen} · {u.prompt_tokens:,} prompt tokens "
            f"({u.cache_ratio:.0%} cached) · {u.completion_tokens:,} completion tokens · "
            f"${u.cost_usd:.4f} · {neutralize(report.model)}</sub>")


def _outside_line(f: Finding) -> str:
    return (f"- {BADGE[f.severity]} `{f.path.replace('`', '')}` line {f.line}: **{neutralize(f.title)}**. "
            f"{neutralize(f.body)}")


def check_title(report: ReviewReport) -> str:
    total = len(report.placement.inline) + len(report.placement.outside)
    return "No findings" if total == 0 else f"{total} finding{'s' if total != 1 else ''}"


def _bounded(text: str) -> str:
    if len(text) <= MAX_BODY:
        return text
    return text[:MAX_BODY] + "\n\n…(truncated)"
