"""`reviewbot eval --fixes`: every expected finding of the suite's cases fixed by the configured model, and how many
reached each stage (applied, checked, verified, fixed on a re-review), as a table or as JSON."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import UTC, datetime
from typing import Any

import httpx

from reviewbot.eval.fixes import STAGES, FixOutcome, fix_expected, fix_totals
from reviewbot.eval.runner import RunOptions, case_config
from reviewbot.eval.scoring import JUDGES
from reviewbot.eval.suite import Case, load_suite
from reviewbot.inference.factory import model_client
from reviewbot.inference.memo import MemoryMemo
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.inference.tools import RepoTools
from reviewbot.model import Usage
from reviewbot.review.config import context_options, precision
from reviewbot.review.engine import ReviewInput, affinity_id
from reviewbot.review.prompt.sections import PromptInput
from reviewbot.settings import Settings


def fixes_command(settings: Settings, args: argparse.Namespace) -> int:
    if args.model == "fake":
        print("reviewbot: eval --fixes needs a model (recorded review answers hold no fixes): drop --model fake and "
              "point REVIEWBOT_MODEL_BASE_URL at any OpenAI-compatible server, or set CLOUDFLARE_*", file=sys.stderr)
        return 2
    settings.require(settings.missing_for_model(), "reviewbot eval --fixes (fixes need a model: recorded review "
                                                   "answers hold none)")
    cases = [c for c in load_suite(args.suite, args.case) if c.expected]
    outcomes, usage = asyncio.run(_run_all(cases, settings, args.judge))
    report: dict[str, Any] = {"suite": str(args.suite), "model": settings.model, "judge": args.judge,
                              "date": datetime.now(UTC).date().isoformat(), "totals": fix_totals(outcomes),
                              "cost_usd": round(usage.cost_usd, 4),
                              "findings": [o.__dict__ for o in outcomes]}
    print(json.dumps(report, indent=2) if args.format == "json" else _table(report, outcomes))
    return 0


async def _run_all(cases: list[Case], settings: Settings, judge: str) -> tuple[list[FixOutcome], Usage]:
    outcomes: list[FixOutcome] = []
    total = Usage()
    async with httpx.AsyncClient(timeout=httpx.Timeout(settings.model_timeout, connect=10.0)) as http:
        for case in cases:  # one at a time: a fix's requests reuse its case's cached prompt
            config = case_config(case, RunOptions(model="real"))
            tools = RepoTools(case.root / "base") if (case.root / "base").is_dir() else None
            prompt = PromptInput(title=case.title, description=case.description, diff=case.diff,
                                 base_files=case.base,
                                 options=context_options(config, settings.prompt_budget,
                                                         [f.path for f in case.diff.files], tools=tools is not None))
            inp = ReviewInput(prompt=prompt, affinity=affinity_id("eval-fix", case.name),
                              precision=precision(config))
            reviewer = StructuredReviewer(model_client(settings, http), memo=MemoryMemo(), tools=tools,
                                          max_turns=settings.max_tool_turns,
                                          token_budget=settings.review_token_budget)
            for want in case.expected:
                outcome, usage = await fix_expected(case, inp, want, reviewer.fresh(), JUDGES[judge])
                outcomes.append(outcome)
                total += usage
    return outcomes, total


def _table(report: dict[str, Any], outcomes: list[FixOutcome]) -> str:
    rows = [f"{'case':<34} {'file':<28} {'reached':<9} declined", "-" * 90]
    rows += [f"{o.case[:34]:<34} {f'{o.path}:{o.line}'[:28]:<28} {o.reached or '-':<9} {o.declined}"
             for o in outcomes]
    totals = report["totals"]
    rows += ["", f"model {report['model']}: {totals['findings']} findings; "
             + ", ".join(f"{stage} {totals[stage]}" for stage in STAGES)
             + f"; fixed share {totals['fixed_share']:.1%}; cost ${report['cost_usd']:.4f}"]
    return "\n".join(rows)
