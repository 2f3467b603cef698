"""One benchmark run: each pull request reviewed from its local clone with the local review path, then judged."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from reviewbot.errors import ReviewbotError
from reviewbot.eval.golden import BenchmarkPR
from reviewbot.eval.candidates import candidate_text, posted
from reviewbot.eval.judge import judge
from reviewbot.eval.prcommits import base_commit, find_clone, head_commit
from reviewbot.eval.runner import review_with
from reviewbot.eval.scoring import CaseResult, match
from reviewbot.inference.client import ModelClient
from reviewbot.inference.factory import model_client
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.model import Usage
from reviewbot.repos.localgit import read_local_change
from reviewbot.repos.localinput import local_input
from reviewbot.review.config import CONFIG_PATH, parse_config
from reviewbot.review.findings.schema import Finding
from reviewbot.settings import Settings
from reviewbot.state.prompt_stores import FileStores, branch_layout_key

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PRResult:
    pr: BenchmarkPR
    findings: tuple[Finding, ...] = ()
    usage: Usage = field(default_factory=Usage)  # the review's
    judge_usage: Usage = field(default_factory=Usage)
    matched: tuple[tuple[int, int], ...] = ()  # (golden, comment) pairs the judge accepted, 0-based
    true_positives: int = 0
    judged: bool = False
    error: str | None = None

    def as_case(self) -> CaseResult:
        """The suite's per-case numbers (reviewbot/eval/scoring.py), so the totals are computed one way."""
        return CaseResult(self.pr.url, self.pr.source, not self.pr.golden, len(self.pr.golden), self.findings,
                          self.true_positives, usage=self.usage, error=self.error)


async def run_benchmark(prs: list[BenchmarkPR], repos: Path, settings: Settings, *, base_ref: str | None,
                        use_judge: bool) -> list[PRResult]:
    """Pull requests one after another (each review already sends its passes in parallel)."""
    async with httpx.AsyncClient(timeout=httpx.Timeout(settings.model_timeout, connect=10.0)) as http:
        client = model_client(settings, http)
        results = []
        for pr in prs:
            try:
                result = await _review(pr, repos, settings, client, base_ref)
            except ReviewbotError as exc:
                log.warning("benchmark pull request failed", extra={"pr": pr.url, "error": str(exc)})
                results.append(PRResult(pr, error=str(exc)))
                continue
            results.append(await _judged(result, client) if use_judge else result)
        return results


async def _review(pr: BenchmarkPR, repos: Path, settings: Settings, client: ModelClient, base_ref: str | None) -> PRResult:
    clone = find_clone(repos, pr)
    head = await asyncio.to_thread(head_commit, clone, pr)
    base = await asyncio.to_thread(base_commit, clone, pr, head, base_ref)
    change = await asyncio.to_thread(read_local_change, clone, base, head)
    stores = FileStores(settings.data_dir)
    inp = local_input(settings, change, stores, branch_layout_key(change.identity, pr.url))
    config = parse_config(change.snapshot.read(CONFIG_PATH) if change.snapshot else None).config
    result = await review_with(inp, client, None, settings, None)
    return PRResult(pr, posted(result, config.severity_threshold), usage=result.report.usage)


async def _judged(result: PRResult, client: ModelClient) -> PRResult:
    reviewer = StructuredReviewer(client, max_turns=0)
    golden = [g.comment for g in result.pr.golden]
    try:
        matches, usage = await judge(reviewer, result.pr.url, golden, [candidate_text(f) for f in result.findings])
    except ReviewbotError as exc:
        return PRResult(result.pr, result.findings, result.usage, error=f"judge: {exc}")
    hits = match(range(len(golden)), range(len(result.findings)), lambda g, c: c in matches.get(g, frozenset()))
    pairs = tuple((g, c) for g, found in sorted(matches.items()) for c in sorted(found))
    return PRResult(result.pr, result.findings, result.usage, usage, pairs, hits, judged=True)
