"""Matching reported findings to expected ones, and the suite's numbers, pure."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from reviewbot.eval.suite import Expected
from reviewbot.model import Usage
from reviewbot.review.findings.schema import Finding

SLACK = 3  # lines either side: models anchor on the line before or after the one a person would pick
Judge = Callable[[Expected, Finding], bool]
E = TypeVar("E")
R = TypeVar("R")


def near(expected: Expected, finding: Finding) -> bool:
    """Same file and side, and the finding's lines overlap the expected range widened by SLACK."""
    start = finding.start_line or finding.line
    return (finding.path == expected.path and finding.side == expected.side
            and start <= expected.end + SLACK and finding.line >= expected.start - SLACK)


def same_category(expected: Expected, finding: Finding) -> bool:
    return near(expected, finding) and finding.category in expected.categories


JUDGES: dict[str, Judge] = {"category": same_category, "location": near}


@dataclass(frozen=True)
class CaseResult:
    name: str
    language: str
    clean: bool
    expected: int
    reported: tuple[Finding, ...]
    true_positives: int
    usage: Usage = field(default_factory=Usage)
    dropped: int = 0  # candidates the verification pass refuted
    error: str | None = None

    @property
    def false_positives(self) -> int:
        return len(self.reported) - self.true_positives

    @property
    def false_negatives(self) -> int:
        return self.expected - self.true_positives


def match(expected: Sequence[E], reported: Sequence[R], judge: Callable[[E, R], bool]) -> int:
    """True positives: each expected finding takes the first unmatched report the judge accepts; a second report
    of the same problem is a false positive (duplicates are noise to the reader too)."""
    free = list(range(len(reported)))
    hits = 0
    for want in expected:
        index = next((i for i in free if judge(want, reported[i])), None)
        if index is not None:
            free.remove(index)
            hits += 1
    return hits


def _ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def summarize(results: Sequence[CaseResult]) -> dict[str, Any]:
    """Suite totals: micro-averaged recall, precision and F1 over every finding of every case."""
    tp = sum(r.true_positives for r in results)
    fp = sum(r.false_positives for r in results)
    fn = sum(r.false_negatives for r in results)
    recall, precision = _ratio(tp, tp + fn), _ratio(tp, tp + fp)
    f1 = 2 * precision * recall / (precision + recall) if recall and precision else (0.0 if tp + fn else None)
    clean = [r for r in results if r.clean]
    usage = sum((r.usage for r in results), Usage())
    n = len(results)
    return {"cases": n, "errors": sum(1 for r in results if r.error), "expected": tp + fn,
            "reported": tp + fp, "true_positives": tp, "false_positives": fp, "false_negatives": fn,
            "recall": recall, "precision": precision, "f1": f1,
            "comments_per_pr": _ratio(tp + fp, n),
            "clean_cases": len(clean), "false_positives_on_clean": sum(r.false_positives for r in clean),
            "clean_cases_flagged": sum(1 for r in clean if r.reported),
            "dropped_by_verification": sum(r.dropped for r in results),
            "prompt_tokens": usage.prompt_tokens, "cached_tokens": usage.cached_tokens,
            "completion_tokens": usage.completion_tokens, "requests": usage.requests,
            "cache_hit_ratio": _ratio(usage.cached_tokens, usage.prompt_tokens),
            "cost_usd": round(usage.cost_usd, 6), "cost_per_case_usd": _ratio(round(usage.cost_usd, 6), n)}
