"""One review from inputs to placed findings; the model is a parameter, so this module does no I/O."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from reviewbot.inference.pricing import Usage
from reviewbot.review.anchor import anchor
from reviewbot.review.diff import ParsedDiff
from reviewbot.review.findings import ReviewOutput
from reviewbot.review.layout import Layout
from reviewbot.review.options import ContextOptions
from reviewbot.review.pipeline import Plan, build_plan
from reviewbot.review.precision import Precision, Verifier, checked_findings
from reviewbot.review.prompt import CHARS_PER_TOKEN, Prompt, PromptInput
from reviewbot.review.render import ReviewReport
from reviewbot.review.snapshot import MemorySnapshot, Snapshot


@dataclass(frozen=True)
class ModelAnswer:
    """A validated answer, what it cost, and which model actually served it."""

    output: ReviewOutput
    usage: Usage
    model: str


class Reviewer(Protocol):
    async def review(self, messages: list[dict[str, str]], affinity: str) -> ModelAnswer: ...


@dataclass(frozen=True)
class ReviewInput:
    """One review's inputs; `snapshot` is the base tree (the repository cache), else `base_files` in memory."""

    title: str
    description: str
    diff: ParsedDiff
    base_files: Mapping[str, str]
    affinity: str
    snapshot: Snapshot | None = None
    options: ContextOptions = field(default_factory=ContextOptions)
    previous_layout: Layout | None = None  # the last layout of this PR or branch, to keep its prefix
    chars_per_token: float = CHARS_PER_TOKEN
    volatile_note: str = ""
    notes: tuple[str, ...] = ()
    precision: Precision = field(default_factory=Precision)  # passes, verification, security mode


@dataclass(frozen=True)
class ReviewResult:
    output: ReviewOutput
    report: ReviewReport
    prompt: Prompt
    plan: Plan


def prepare(inp: ReviewInput) -> Plan:
    """The prompt plan: sections, coverage, the layout to remember, and the expected cache reuse."""
    prompt_input = PromptInput(title=inp.title, description=inp.description, diff=inp.diff,
                               base_files=inp.base_files, volatile_note=inp.volatile_note, snapshot=inp.snapshot,
                               options=inp.options, chars_per_token=inp.chars_per_token, notes=inp.notes)
    return build_plan(prompt_input, inp.previous_layout)


def plan(inp: ReviewInput) -> Prompt:
    """The prompt this review would send."""
    return prepare(inp).prompt


async def run_review(inp: ReviewInput, reviewer: Reviewer, verifier: Verifier | None = None) -> ReviewResult:
    """The review passes, merged, then the verification of candidates (when a verifier is given): only what
    survives is placed; the usage of every request is summed into the report."""
    # Context selection parses and searches files: a second of CPU that must not stall the event loop.
    prepared = await asyncio.to_thread(prepare, inp)
    prompt = prepared.prompt
    snapshot = inp.snapshot or MemorySnapshot(inp.base_files)
    checked = await checked_findings(prompt.messages, inp.affinity, inp.precision, inp.diff, snapshot.read,
                                     reviewer, verifier)
    output = checked.output
    placement = anchor(output.findings, inp.diff)
    coverage = prepared.coverage
    report = ReviewReport(summary=output.summary, placement=placement, usage=checked.usage,
                          model=checked.model, files_reviewed=len(coverage.reviewed) + len(coverage.partial),
                          skipped=prompt.skipped, coverage=coverage, walkthrough=tuple(output.walkthrough),
                          checks=checked.checks, security=inp.precision.security)
    return ReviewResult(output=output, report=report, prompt=prompt, plan=prepared)


def affinity_id(*parts: object) -> str:
    """A stable `x-session-affinity` value: the same for every request about one PR (or branch)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]
    return f"ses_{digest}"
