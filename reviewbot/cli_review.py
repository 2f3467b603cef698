"""`reviewbot review`: review local git changes with the model, or print the prompt plan (--dry-run)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx

from reviewbot.errors import ModelQueued
from reviewbot.inference.memo import MemoryMemo
from reviewbot.inference.pricing import DEFAULT_PRICES, cost
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.localgit import read_local_change
from reviewbot.observe.progress import ReviewStatus
from reviewbot.queue.worker import model_client
from reviewbot.review.engine import ReviewInput, ReviewResult, affinity_id, plan, run_review
from reviewbot.review.render import comment_body, review_body
from reviewbot.settings import Settings

EXPECTED_COMPLETION_TOKENS = 2_000  # for the dry-run estimate only


def review_command(settings: Settings, repo: Path, base: str, head: str, fmt: str, dry_run: bool) -> int:
    change = read_local_change(repo, base, head)
    inp = ReviewInput(title=change.title, description=change.description, diff=change.diff,
                      base_files=change.base_files, affinity=affinity_id("local", change.identity, change.branch))
    if dry_run:
        print(_dry_run(settings, inp, fmt))
        return 0
    settings.require(settings.missing_for_model(), "reviewbot review")
    result = asyncio.run(_review(settings, inp))
    print(_as_json(result) if fmt == "json" else _as_markdown(result))
    return 0


async def _review(settings: Settings, inp: ReviewInput) -> ReviewResult:
    timeout = httpx.Timeout(settings.model_timeout, connect=10.0)
    memo = MemoryMemo()  # answers that came through the provider's queue, replayed on the next pass
    async with httpx.AsyncClient(timeout=timeout) as http:
        client = model_client(settings, http)
        reviewer = StructuredReviewer(client, memo=memo, max_turns=settings.max_tool_turns,
                                      token_budget=settings.review_token_budget)
        with ReviewStatus() as status:  # progress on stderr when it is a terminal
            client.on_request = status.request_done
            while True:
                try:
                    return await run_review(inp, reviewer)
                except ModelQueued as exc:
                    print(f"reviewbot: {exc}; polling again in {exc.retry_after:.0f}s", file=sys.stderr)
                    await asyncio.sleep(exc.retry_after or 10.0)


def _as_json(result: ReviewResult) -> str:
    placement = result.report.placement
    findings = [a.finding for a in placement.inline] + list(placement.outside)
    return json.dumps({"summary": result.output.summary,
                       "findings": [f.model_dump() for f in findings],
                       "usage": result.report.usage.as_json()}, indent=2)


def _as_markdown(result: ReviewResult) -> str:
    parts = [review_body(result.report)]
    for anchored in result.report.placement.inline:
        f = anchored.finding
        parts.append(f"---\n**{f.path}:{anchored.line}** ({f.side})\n\n{comment_body(anchored)}")
    return "\n\n".join(parts)


def _dry_run(settings: Settings, inp: ReviewInput, fmt: str) -> str:
    prompt = plan(inp)
    price = DEFAULT_PRICES.get(settings.model)
    estimate = cost(price, prompt.tokens, 0, EXPECTED_COMPLETION_TOKENS) if price else None
    data: dict[str, Any] = {
        "model": settings.model, "affinity": inp.affinity, "prompt_tokens_estimate": prompt.tokens,
        "estimated_cost_usd": None if estimate is None else round(estimate, 6),
        "sections": [{"name": s.name, "tokens": s.tokens, "items": list(s.items)} for s in prompt.sections],
        "skipped": list(prompt.skipped),
    }
    if fmt == "json":
        return json.dumps(data, indent=2)
    lines = [f"Prompt plan for {settings.model} (affinity {inp.affinity})", ""]
    for section in prompt.sections:
        lines.append(f"{section.name:<16} {section.tokens:>8,} tokens  {', '.join(section.items)[:100]}")
    lines.append(f"{'total':<16} {prompt.tokens:>8,} tokens")
    if prompt.skipped:
        lines.append(f"left out for the budget: {', '.join(prompt.skipped)}")
    if estimate is not None:
        lines.append(f"estimated cost without cache hits: ${estimate:.4f} "
                     f"(assuming {EXPECTED_COMPLETION_TOKENS:,} completion tokens)")
    return "\n".join(lines)
