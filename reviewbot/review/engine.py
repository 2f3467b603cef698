"""One review from inputs to placed findings; the model is a parameter, so this module does no I/O."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from reviewbot.inference.pricing import Usage
from reviewbot.review.anchor import anchor
from reviewbot.review.diff import ParsedDiff
from reviewbot.review.findings import ReviewOutput
from reviewbot.review.prompt import Prompt, PromptInput, build_prompt
from reviewbot.review.render import ReviewReport


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
    title: str
    description: str
    diff: ParsedDiff
    base_files: Mapping[str, str]
    affinity: str
    guidance: str = ""


@dataclass(frozen=True)
class ReviewResult:
    output: ReviewOutput
    report: ReviewReport
    prompt: Prompt


def plan(inp: ReviewInput) -> Prompt:
    """The prompt this review would send (also the `--dry-run` plan)."""
    return build_prompt(PromptInput(title=inp.title, description=inp.description, diff=inp.diff,
                                    base_files=inp.base_files, guidance=inp.guidance))


async def run_review(inp: ReviewInput, reviewer: Reviewer) -> ReviewResult:
    prompt = plan(inp)
    answer = await reviewer.review(prompt.messages, inp.affinity)
    placement = anchor(answer.output.findings, inp.diff)
    reviewed = sum(1 for f in inp.diff.files if not f.binary)
    report = ReviewReport(summary=answer.output.summary, placement=placement, usage=answer.usage,
                          model=answer.model, files_reviewed=reviewed, skipped=prompt.skipped,
                          walkthrough=tuple(answer.output.walkthrough))
    return ReviewResult(output=answer.output, report=report, prompt=prompt)


def affinity_id(*parts: object) -> str:
    """A stable `x-session-affinity` value: the same for every request about one PR (or branch)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]
    return f"ses_{digest}"
