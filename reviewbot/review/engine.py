"""One review from inputs to placed findings; the model is a parameter, so this module does no I/O."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from reviewbot.review.findings.precision import Precision
from reviewbot.review.prompt.plan import Plan, build_plan

if TYPE_CHECKING:  # what only a review that calls the model needs is imported in run_review: a dry run plans only
    from reviewbot.review.findings.refine import ReviewerPort, VerifierPort
    from reviewbot.review.findings.schema import ReviewOutput
    from reviewbot.review.prompt.layout import Layout
    from reviewbot.review.prompt.sections import Prompt, PromptInput
    from reviewbot.review.publish.markdown import ReviewReport


@dataclass(frozen=True)
class ReviewInput:
    """One review's inputs: what the prompt is built from, and what the conversation around it needs."""

    prompt: PromptInput
    affinity: str
    previous_layout: Layout | None = None  # the last layout of this PR or branch, to keep its prefix
    precision: Precision = field(default_factory=Precision)  # passes, verification, security mode


@dataclass(frozen=True)
class ReviewResult:
    output: ReviewOutput
    report: ReviewReport
    prompt: Prompt
    plan: Plan


def prepare(inp: ReviewInput) -> Plan:
    """The prompt plan: sections, coverage, the layout to remember, and the expected cache reuse."""
    return build_plan(inp.prompt, inp.previous_layout)


def plan(inp: ReviewInput) -> Prompt:
    """The prompt this review would send."""
    return prepare(inp).prompt


async def run_review(inp: ReviewInput, reviewer: ReviewerPort, verifier: VerifierPort | None = None) -> ReviewResult:
    """The review passes, merged, then the verification of candidates (when a verifier is given): only what
    survives is placed; the usage of every request is summed into the report."""
    import asyncio

    from reviewbot.review.context.snapshot import MemorySnapshot
    from reviewbot.review.findings.anchoring import anchor
    from reviewbot.review.findings.refine import checked_findings
    from reviewbot.review.publish.markdown import ReviewReport

    # Context selection parses and searches files: a second of CPU that must not stall the event loop.
    prepared = await asyncio.to_thread(prepare, inp)
    prompt = prepared.prompt
    snapshot = inp.prompt.snapshot or MemorySnapshot(inp.prompt.base_files)
    checked = await checked_findings(prompt.messages, inp.affinity, inp.precision, inp.prompt.diff, snapshot.read,
                                     reviewer, verifier)
    output = checked.output
    placement = anchor(output.findings, inp.prompt.diff)
    coverage = prepared.coverage
    report = ReviewReport(summary=output.summary, placement=placement, usage=checked.usage,
                          model=checked.model, files_reviewed=len(coverage.reviewed) + len(coverage.partial),
                          skipped=prompt.skipped, coverage=coverage, walkthrough=tuple(output.walkthrough),
                          checks=checked.checks, security=inp.precision.security, issues=tuple(output.issues),
                          repo=inp.prompt.repo)
    return ReviewResult(output=output, report=report, prompt=prompt, plan=prepared)


def affinity_id(*parts: object) -> str:
    """A stable `x-session-affinity` value: the same for every request about one PR (or branch)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]
    return f"ses_{digest}"
