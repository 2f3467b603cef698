"""`reviewbot eval`: run the suite, print per-case rows and the totals as a table or as JSON."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import UTC, datetime
from typing import Any

import httpx

from reviewbot.eval.runner import RunOptions, run_case
from reviewbot.eval.scoring import JUDGES, CaseResult, summarize
from reviewbot.eval.suite import Case, load_suite
from reviewbot.settings import Settings


def eval_command(settings: Settings, args: argparse.Namespace) -> int:
    if args.model == "real":
        settings.require(settings.missing_for_model(), "reviewbot eval --model real (or use --model fake)")
    overrides = tuple((k, v) for k, v in (("verify", args.verify), ("passes", args.passes)) if v is not None)
    options = RunOptions(model=args.model, overrides=overrides, record=args.record and args.model == "real")
    cases = load_suite(args.suite, args.case)
    results = asyncio.run(_run_all(cases, settings, options, args.judge))
    report = {"suite": str(args.suite), "model": settings.model if args.model == "real" else "fake (recorded answers)",
              "judge": args.judge, "date": datetime.now(UTC).date().isoformat(), "overrides": dict(overrides),
              "totals": summarize(results), "cases": [_case_json(r) for r in results]}
    print(json.dumps(report, indent=2) if args.format == "json" else table(report, results))
    for result in results:
        if result.error:
            print(f"reviewbot: case {result.name} failed: {result.error}", file=sys.stderr)
    return 1 if report["totals"]["errors"] else 0


async def _run_all(cases: list[Case], settings: Settings, options: RunOptions, judge: str) -> list[CaseResult]:
    limit = asyncio.Semaphore(4 if options.model == "real" else 1)
    async with httpx.AsyncClient(timeout=httpx.Timeout(settings.model_timeout, connect=10.0)) as http:
        async def one(case: Case) -> CaseResult:
            async with limit:
                return await run_case(case, settings, http, options, JUDGES[judge])

        return list(await asyncio.gather(*(one(c) for c in cases)))


def _case_json(r: CaseResult) -> dict[str, Any]:
    return {"name": r.name, "language": r.language, "clean": r.clean, "expected": r.expected,
            "reported": len(r.reported), "true_positives": r.true_positives, "false_positives": r.false_positives,
            "false_negatives": r.false_negatives, "dropped_by_verification": r.dropped,
            "prompt_tokens": r.usage.prompt_tokens, "cached_tokens": r.usage.cached_tokens,
            "cost_usd": round(r.usage.cost_usd, 6), "error": r.error,
            "findings": [{"path": f.path, "line": f.line, "category": f.category, "severity": f.severity,
                          "title": f.title} for f in r.reported]}


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def table(report: dict[str, Any], results: list[CaseResult]) -> str:
    rows = [f"{'case':<34} {'lang':<10} {'exp':>3} {'rep':>3} {'tp':>3} {'fp':>3} {'fn':>3} {'drop':>4} "
            f"{'tokens':>8} {'cached':>6} {'cost $':>8}"]
    for r in results:
        name = r.name + (" (clean)" if r.clean else "") + (" ERROR" if r.error else "")
        rows.append(f"{name[:34]:<34} {r.language[:10]:<10} {r.expected:>3} {len(r.reported):>3} "
                    f"{r.true_positives:>3} {r.false_positives:>3} {r.false_negatives:>3} {r.dropped:>4} "
                    f"{r.usage.prompt_tokens:>8,} {_pct(r.usage.cache_ratio):>6} {r.usage.cost_usd:>8.4f}")
    t = report["totals"]
    rows += ["", f"model: {report['model']} · judge: {report['judge']} · {t['cases']} cases, {t['errors']} errors",
             f"recall {_pct(t['recall'])} · precision {_pct(t['precision'])} · F1 {_pct(t['f1'])} "
             f"({t['true_positives']} found of {t['expected']} expected, {t['false_positives']} false positives)",
             f"comments per PR {t['comments_per_pr'] or 0:.2f} · false positives on clean changes "
             f"{t['false_positives_on_clean']} ({t['clean_cases_flagged']} of {t['clean_cases']} clean cases "
             f"flagged) · {t['dropped_by_verification']} candidates dropped by verification",
             f"tokens {t['prompt_tokens']:,} prompt ({_pct(t['cache_hit_ratio'])} cached), "
             f"{t['completion_tokens']:,} completion, {t['requests']} requests · cost ${t['cost_usd']:.4f} "
             f"(${t['cost_per_case_usd'] or 0:.4f} per case)"]
    return "\n".join(rows)
