"""reviewbot's comments in the benchmark's own files: `candidates.json` and `benchmark_data.json` (the inputs of
its step 3 judge), so the benchmark's judge scores reviewbot like every other tool."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reviewbot.eval.golden import BenchmarkPR
from reviewbot.review.engine import ReviewResult
from reviewbot.review.findings.schema import SEVERITY_RANK, Finding

TOOL = "reviewbot"


def posted(result: ReviewResult, threshold: str) -> tuple[Finding, ...]:
    """The findings a review would post: placed inline or in the body, at or above the severity threshold."""
    placement = result.report.placement
    placed = [a.finding for a in placement.inline] + list(placement.outside)
    return tuple(f for f in placed if SEVERITY_RANK[f.severity] <= SEVERITY_RANK[threshold])


def candidate_text(finding: Finding) -> str:
    """One issue in words, as the benchmark's candidates are: the title, then the explanation."""
    title = " ".join(finding.title.split()).rstrip(".")
    body = " ".join(finding.body.split())
    return f"{title}. {body}" if body else title


def candidate(finding: Finding) -> dict[str, Any]:
    return {"text": candidate_text(finding), "path": finding.path, "line": finding.line, "source": "inline"}


def write_outputs(out: Path, reviewed: Sequence[tuple[BenchmarkPR, tuple[Finding, ...]]]) -> list[Path]:
    """`candidates.json` ({url: {"reviewbot": [candidate…]}}, for `results/<judge model>/`) and
    `benchmark_data.json` (each pull request with its golden comments and reviewbot's review, for `results/`)."""
    out.mkdir(parents=True, exist_ok=True)
    candidates = {pr.url: {TOOL: [candidate(f) for f in findings]} for pr, findings in reviewed}
    data = {pr.url: {"pr_title": pr.title, "source_repo": pr.source,
                     "golden_comments": [{"comment": g.comment, "severity": g.severity} for g in pr.golden],
                     "reviews": [{"tool": TOOL, "repo_name": pr.repo, "pr_url": pr.url,
                                  "review_comments": [{"path": f.path, "line": f.line, "body": candidate_text(f)}
                                                      for f in findings]}]}
            for pr, findings in reviewed}
    written = []
    for name, content in (("candidates.json", candidates), ("benchmark_data.json", data)):
        path = out / name
        path.write_text(json.dumps(content, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written
