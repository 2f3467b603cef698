"""`reviewbot eval --benchmark DIR --repos DIR`: a public benchmark of real pull requests, its candidate files and
the built-in judge's precision, recall and F1."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import UTC, datetime
from typing import Any

from reviewbot.errors import ConfigError
from reviewbot.eval.benchrun import PRResult, run_benchmark
from reviewbot.eval.candidates import write_outputs
from reviewbot.eval.golden import load_benchmark
from reviewbot.eval.scoring import summarize
from reviewbot.settings import Settings


def benchmark_command(settings: Settings, args: argparse.Namespace) -> int:
    if args.repos is None:
        raise ConfigError("--benchmark needs --repos DIR: the local clones of the benchmark's repositories")
    if args.model == "fake":
        raise ConfigError("--benchmark reviews with the configured model; recorded answers (--model fake) belong to "
                          "the suite's cases")
    settings.require(settings.missing_for_model(), "reviewbot eval --benchmark")
    prs = load_benchmark(args.benchmark, args.pr)
    results = asyncio.run(run_benchmark(prs, args.repos, settings, base_ref=args.base_ref,
                                        use_judge=not args.no_judge))
    written = write_outputs(args.out, [(r.pr, r.findings) for r in results if r.error is None])
    report = _report(settings, args, results)
    (args.out / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2) if args.format == "json" else _table(report, results))
    print(f"reviewbot: wrote {', '.join(str(p) for p in written)} and {args.out / 'report.json'}", file=sys.stderr)
    for result in results:
        if result.error:
            print(f"reviewbot: {result.pr.url} failed: {result.error}", file=sys.stderr)
    return 1 if any(r.error for r in results) else 0


def _report(settings: Settings, args: argparse.Namespace, results: list[PRResult]) -> dict[str, Any]:
    judged = [r for r in results if r.judged]
    totals = summarize([r.as_case() for r in judged]) if judged else None
    judge_cost = sum(r.judge_usage.cost_usd for r in results)
    return {"benchmark": str(args.benchmark), "model": settings.model, "date": datetime.now(UTC).date().isoformat(),
            "judge": None if args.no_judge else f"built-in ({settings.model}), one-to-one matches",
            "pull_requests": len(results), "errors": sum(1 for r in results if r.error),
            "totals": totals, "judge_cost_usd": round(judge_cost, 6),
            "pulls": [_pr_json(r) for r in results]}


def _pr_json(r: PRResult) -> dict[str, Any]:
    return {"url": r.pr.url, "title": r.pr.title, "golden": len(r.pr.golden), "comments": len(r.findings),
            "true_positives": r.true_positives if r.judged else None,
            "matches": [{"golden": r.pr.golden[g].comment, "comment": r.findings[c].title} for g, c in r.matched],
            "prompt_tokens": r.usage.prompt_tokens, "cost_usd": round(r.usage.cost_usd, 6), "error": r.error}


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _table(report: dict[str, Any], results: list[PRResult]) -> str:
    rows = [f"{'pull request':<60} {'gold':>4} {'rep':>3} {'tp':>3} {'cost $':>8}"]
    for r in results:
        tp = str(r.true_positives) if r.judged else "-"
        name = r.pr.url + (" ERROR" if r.error else "")
        rows.append(f"{name[-60:]:<60} {len(r.pr.golden):>4} {len(r.findings):>3} {tp:>3} {r.usage.cost_usd:>8.4f}")
    t = report["totals"]
    rows.append("")
    if t is None:
        rows.append("not judged (--no-judge or every pull request failed): run the benchmark's own judge on the "
                    "written candidates")
    else:
        rows.append(f"judge: {report['judge']} · {t['cases']} pull requests, {report['errors']} errors")
        rows.append(f"precision {_pct(t['precision'])} · recall {_pct(t['recall'])} · F1 {_pct(t['f1'])} "
                    f"({t['true_positives']} of {t['expected']} golden comments found, {t['false_positives']} "
                    f"other comments) · review cost ${t['cost_usd']:.4f}, judge ${report['judge_cost_usd']:.4f}")
    return "\n".join(rows)
