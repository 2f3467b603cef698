"""Review passes → merge by fingerprint → verification. A check that cannot run never loses a finding: the
candidates are kept and labelled unverified, and what the failed step cost is still counted."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from reviewbot.errors import ModelPermanent
from reviewbot.model import ModelAnswer, Reviewer, Usage, Verifier
from reviewbot.review.diff.parse import ParsedDiff
from reviewbot.review.findings.passes import MAX_PASSES, merge_passes, pass_messages
from reviewbot.review.findings.precision import Precision
from reviewbot.review.findings.schema import Finding, ReviewOutput
from reviewbot.review.findings.verification import (
    BATCH,
    Checks,
    VerifyAnswer,
    apply_verdicts,
    needs_check,
    verification_messages,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
ReviewerPort = Reviewer[ReviewOutput]
VerifierPort = Verifier[VerifyAnswer]


@dataclass(frozen=True)
class Checked:
    output: ReviewOutput  # the first pass's summary and walkthrough, with the findings that survived
    usage: Usage  # every pass and every verification request
    model: str
    checks: Checks


async def checked_findings(messages: list[dict[str, str]], affinity: str, precision: Precision, diff: ParsedDiff,
                           read_base: Callable[[str], str | None], reviewer: ReviewerPort,
                           verifier: VerifierPort | None) -> Checked:
    passes = max(1, min(precision.passes, MAX_PASSES))
    first = await reviewer.review(pass_messages(messages, 0), affinity)  # warms the cache for the others
    extra = await _all([_extra_pass(reviewer, pass_messages(messages, i), affinity) for i in range(1, passes)])
    answers = [first] + [a for a, _ in extra if a is not None]
    usage = sum((u for _, u in extra), first.usage)
    findings, merged = merge_passes([a.output.findings for a in answers], diff)
    candidates = [f for f in findings if needs_check(f, precision.policy, precision.threshold)]
    kept = [f for f in findings if not needs_check(f, precision.policy, precision.threshold)]
    checks = Checks(passes=len(answers), merged=merged, failed_passes=passes - len(answers))
    if candidates and verifier is not None:
        batches = [candidates[i:i + BATCH] for i in range(0, len(candidates), BATCH)]
        results = await _all([_verify(verifier, messages, batch, affinity, diff, read_base) for batch in batches])
        for confirmed, batch_checks, batch_usage in results:
            kept += confirmed
            usage = usage + batch_usage
            checks = _add(checks, batch_checks)
    else:
        kept += candidates
    output = ReviewOutput(summary=first.output.summary, walkthrough=first.output.walkthrough, findings=kept,
                          issues=first.output.issues)
    return Checked(output=output, usage=usage, model=first.model, checks=checks)


async def _verify(verifier: VerifierPort, messages: list[dict[str, str]], batch: list[Finding], affinity: str,
                  diff: ParsedDiff, read_base: Callable[[str], str | None]) -> tuple[list[Finding], Checks, Usage]:
    ids = list(range(1, len(batch) + 1))
    try:
        answer = await verifier.verify(verification_messages(messages, batch, diff, read_base), ids, affinity)
    except ModelPermanent as exc:
        # A precision filter that fails must not become a silent pass: post the candidates, labelled.
        log.warning("verification could not run; candidates posted as unverified", extra={"error": str(exc)[:300]})
        unverified = [f.model_copy(update={"unverified": True}) for f in batch]
        return unverified, Checks(checked=0, unchecked=tuple(f.title for f in batch)), exc.usage
    kept, checks = apply_verdicts(batch, answer.verdicts)
    return kept, checks, answer.usage


async def _extra_pass(reviewer: ReviewerPort, messages: list[dict[str, str]],
                      affinity: str) -> tuple[ModelAnswer[ReviewOutput] | None, Usage]:
    """An extra pass that fails permanently is skipped (the first pass's findings stand), its cost counted."""
    try:
        answer = await reviewer.review(messages, affinity)
    except ModelPermanent as exc:
        log.warning("an extra review pass failed; keeping the other passes", extra={"error": str(exc)[:300]})
        return None, exc.usage
    return answer, answer.usage


def _add(a: Checks, b: Checks) -> Checks:
    return Checks(checked=a.checked + b.checked, confirmed=a.confirmed + b.confirmed,
                  downgraded=a.downgraded + b.downgraded, dropped=a.dropped + b.dropped,
                  unchecked=a.unchecked + b.unchecked, passes=a.passes, merged=a.merged,
                  failed_passes=a.failed_passes)


async def _all(coroutines: list[Coroutine[Any, Any, T]]) -> list[T]:
    """Run concurrently; the first failure cancels the rest and is raised as itself (not an ExceptionGroup), so
    ModelQueued and friends reach the job's handlers unchanged."""
    if not coroutines:
        return []
    tasks: list[asyncio.Task[T]] = []
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(c) for c in coroutines]
    except BaseExceptionGroup as grouped:
        raise _first(grouped) from None
    return [t.result() for t in tasks]


def _first(grouped: BaseExceptionGroup[BaseException]) -> BaseException:
    inner = grouped.exceptions[0]
    return _first(inner) if isinstance(inner, BaseExceptionGroup) else inner

