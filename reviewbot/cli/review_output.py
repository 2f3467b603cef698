"""What `reviewbot review` prints: one JSON shape for a dry run and a review, the plan as text or Markdown."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reviewbot.review.engine import ReviewResult
from reviewbot.review.prompt.plan import Plan

if TYPE_CHECKING:  # a dry run loads no pydantic model
    from reviewbot.review.findings.schema import Finding

EXPECTED_COMPLETION_TOKENS = 2_000  # for the dry-run estimate only


@dataclass(frozen=True)
class Revisions:
    """The two ends of the reviewed range, as the user named them and as commits."""

    base_ref: str
    base_sha: str  # the merge base: what the change is compared with
    head_ref: str
    head_sha: str
    worktree: bool = False  # the head is the working tree on top of head_sha


@dataclass(frozen=True)
class PlanFacts:
    """The plan and what the CLI knows around it (model, branch, estimate)."""

    plan: Plan
    model: str
    affinity: str
    branch: str
    budget_tokens: int
    chars_per_token: float
    previous_review: bool
    estimate_usd: float | None  # None: no price for the model (REVIEWBOT_PRICES names none)


def as_json(rev: Revisions, facts: PlanFacts, result: ReviewResult | None,
            blocking: str | None, blocked: bool) -> str:
    """The same keys for a dry run (`findings` empty, `summary` and `usage` null) and for a review."""
    prompt, coverage = facts.plan.prompt, facts.plan.coverage
    findings = [] if result is None else posted(result)
    data: dict[str, Any] = {
        "dry_run": result is None,
        "base": {"ref": rev.base_ref, "sha": rev.base_sha},
        "head": {"ref": rev.head_ref, "sha": rev.head_sha, "worktree": rev.worktree},
        "model": facts.model, "affinity": facts.affinity, "prompt_tokens_estimate": prompt.tokens,
        "budget_tokens": facts.budget_tokens, "chars_per_token": facts.chars_per_token,
        "expected_cached_tokens": facts.plan.reuse_tokens, "previous_review": facts.previous_review,
        "estimated_cost_usd": None if facts.estimate_usd is None else round(facts.estimate_usd, 6),
        "sections": [{"name": s.name, "tokens": s.tokens, "items": list(s.items)} for s in prompt.sections],
        "skipped": list(prompt.skipped), "coverage": coverage.as_json(),
        "summary": None if result is None else result.output.summary,
        "findings": [f.model_dump() for f in findings],
        "usage": None if result is None else result.report.usage.as_json(),
        "blocking": {"severity": blocking, "reached": blocked},
    }
    return json.dumps(data, indent=2)


def nothing_json(rev: Revisions, dry_run: bool, reason: str, model: str, blocking: str | None) -> str:
    """`as_json`'s keys for a range with nothing to review: no plan (null), no findings, nothing spent, and why."""
    data: dict[str, Any] = {
        "dry_run": dry_run,
        "base": {"ref": rev.base_ref, "sha": rev.base_sha},
        "head": {"ref": rev.head_ref, "sha": rev.head_sha, "worktree": rev.worktree},
        "model": model, "affinity": None, "prompt_tokens_estimate": 0, "budget_tokens": None,
        "chars_per_token": None, "expected_cached_tokens": 0, "previous_review": False,
        "estimated_cost_usd": 0.0, "sections": [], "skipped": [], "coverage": None,
        "summary": None, "findings": [], "usage": None,
        "blocking": {"severity": blocking, "reached": False},
        "nothing_to_review": reason,
    }
    return json.dumps(data, indent=2)


def posted(result: ReviewResult) -> list[Finding]:
    placement = result.report.placement
    return [a.finding for a in placement.inline] + list(placement.outside)


def review_markdown(result: ReviewResult) -> str:
    from reviewbot.review.publish.markdown import comment_body, review_body

    parts = [review_body(result.report)]
    for anchored in result.report.placement.inline:
        f = anchored.finding
        parts.append(f"---\n**{f.path}:{anchored.line}** ({f.side})\n\n{comment_body(anchored)}")
    return "\n\n".join(parts)


def _code(text: str) -> str:
    return "`" + text.replace("`", "'").replace("\n", " ") + "`"  # names from the repository: no way out of the span


def plan_text(rev: Revisions, facts: PlanFacts, markdown: bool) -> str:
    """The dry run for a terminal, or as Markdown (headings, a table, lists) for a pull request or a wiki."""
    plan, prompt, coverage = facts.plan, facts.plan.prompt, facts.plan.coverage
    head = f"{rev.head_ref} ({rev.head_sha[:12]}{' + working tree' if rev.worktree else ''})"
    title = f"Prompt plan for {facts.model}: {rev.base_ref} ({rev.base_sha[:12]}) → {head}"
    code = _code if markdown else str
    item = "- " if markdown else "  "
    lines = [f"## {title}" if markdown else title, f"affinity {code(facts.affinity)}", ""]
    if markdown:
        lines += ["### Sections, in cache order", "", "| Section | Tokens | Items |", "|---|---:|---:|"]
        lines += [f"| {s.name} | {s.tokens:,} | {len(s.items)} |" for s in prompt.sections]
        lines += [f"| **total** | **{prompt.tokens:,}** | budget {facts.budget_tokens:,}, "
                  f"{facts.chars_per_token:.2f} chars/token |"]
    else:
        lines.append("Sections, in cache order:")
        lines += [f"  {s.name:<33} {s.tokens:>8,} tokens  {len(s.items)} item(s)" for s in prompt.sections]
        lines.append(f"  {'total':<33} {prompt.tokens:>8,} tokens  (budget {facts.budget_tokens:,}, "
                     f"{facts.chars_per_token:.2f} chars/token)")

    def heading(text: str) -> list[str]:
        return ["", f"### {text}" if markdown else f"{text}:", *([""] if markdown else [])]

    lines += heading(f"Context files ({len(coverage.context)})")
    lines += [f"{item}{code(p)} ({t:,} tokens): {r}" for p, r, t in coverage.context] or [f"{item}(none)"]
    if coverage.left_out:  # related, but weakly or at too high a price: the context is a ceiling, not a target
        lines += heading(f"Related but left out ({len(coverage.left_out)})")
        lines += [f"{item}{code(p)}: {w}" for p, w in coverage.left_out[:40]]
        lines += [f"{item}… and {len(coverage.left_out) - 40} more"] if len(coverage.left_out) > 40 else []
    if coverage.rules:  # the team's rules files: which applied to how many changed files, which were cut and why
        lines += heading(f"Rules files ({len(coverage.rules)})")
        lines += [f"{item}{code(p)}: {s}" + (f" to {len(f)} file(s)" if f and s in ("applied", "truncated") else "")
                  + (f" ({w})" if w else "") for p, s, w, f in coverage.rules]
    diff = f"Diff: {len(coverage.reviewed)} file(s) in full, {len(coverage.partial)} in part"
    details = [f"{item}in part: {code(p)}: {w}" for p, w in coverage.partial]
    details += [f"{item}not reviewed: {code(p)}: {r}" for p, r in coverage.skipped]
    details += [f"{item}note: {n}" for n in coverage.notes]
    lines += heading(diff) + details if details else ["", f"### {diff}" if markdown else diff]
    lines.append("")
    if not facts.previous_review:
        lines.append(f"expected cache reuse: none (no earlier review of {code(facts.branch)})")
    else:
        share = plan.reuse_tokens / prompt.tokens if prompt.tokens else 0.0
        lines.append(f"expected cache reuse vs the last review of {code(facts.branch)}: {plan.reuse_tokens:,} of "
                     f"{prompt.tokens:,} tokens ({share:.0%})")
    if markdown:
        lines.append("")
    if facts.estimate_usd is not None:
        lines.append(f"estimated cost: ${facts.estimate_usd:.4f} (with {plan.reuse_tokens:,} cached tokens, "
                     f"assuming {EXPECTED_COMPLETION_TOKENS:,} completion tokens)")
    else:
        lines.append(f"estimated cost: unknown (no price for {code(facts.model)}: set REVIEWBOT_PRICES)")
    return "\n".join(lines)
