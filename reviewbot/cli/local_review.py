"""Review local git changes with the model, or print the prompt plan (`reviewbot review --dry-run`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from reviewbot.inference.pricing import cost
from reviewbot.repos.localgit import read_local_change
from reviewbot.repos.localinput import local_input
from reviewbot.review.engine import ReviewInput, ReviewResult, prepare
from reviewbot.review.prompt.plan import Plan
from reviewbot.settings import Settings
from reviewbot.settings.catalogue import DEFAULT_PRICES
from reviewbot.state.prompt_stores import FileStores, branch_layout_key

EXPECTED_COMPLETION_TOKENS = 2_000  # for the dry-run estimate only


def review_command(settings: Settings, repo: Path, base: str, head: str, fmt: str, dry_run: bool) -> int:
    change = read_local_change(repo, base, head)
    stores = FileStores(settings.data_dir)
    key = branch_layout_key(change.identity, change.branch)
    inp = local_input(settings, change, stores, key)
    if dry_run:
        print(_dry_run(settings, inp, prepare(inp), fmt, change.branch))
        return 0
    settings.require(settings.missing_for_model(), "reviewbot review")
    import asyncio  # a dry run runs nothing asynchronously

    result = asyncio.run(_review(settings, inp))
    stores.save_layout(key, result.plan.layout)
    if result.report.usage.requests == 1:
        stores.observe(settings.model, result.prompt.chars, result.report.usage.prompt_tokens)
    print(_as_json(result) if fmt == "json" else _as_markdown(result))
    return 0


async def _review(settings: Settings, inp: ReviewInput) -> ReviewResult:
    # Imported here: a dry run needs none of the model client, and start-up is what a user waits for.
    import httpx

    from reviewbot.inference.factory import model_client
    from reviewbot.inference.memo import MemoryMemo
    from reviewbot.inference.polling import answer_polling
    from reviewbot.inference.structured import StructuredReviewer
    from reviewbot.observe.progress import ReviewStatus

    timeout = httpx.Timeout(settings.model_timeout, connect=10.0)
    memo = MemoryMemo()  # answers that came through the provider's queue, replayed on the next pass
    async with httpx.AsyncClient(timeout=timeout) as http:
        client = model_client(settings, http)
        reviewer = StructuredReviewer(client, memo=memo, max_turns=settings.max_tool_turns,
                                      token_budget=settings.review_token_budget)
        with ReviewStatus() as status:  # progress on stderr when it is a terminal
            client.on_request = status.request_done
            answer = answer_polling(lambda exc: print(f"reviewbot: {exc}; polling again in {exc.retry_after:.0f}s",
                                                      file=sys.stderr))
            return await answer(inp, reviewer)


def _as_json(result: ReviewResult) -> str:
    placement = result.report.placement
    findings = [a.finding for a in placement.inline] + list(placement.outside)
    return json.dumps({"summary": result.output.summary,
                       "findings": [f.model_dump() for f in findings],
                       "usage": result.report.usage.as_json()}, indent=2)


def _as_markdown(result: ReviewResult) -> str:
    from reviewbot.review.publish.markdown import comment_body, review_body

    parts = [review_body(result.report)]
    for anchored in result.report.placement.inline:
        f = anchored.finding
        parts.append(f"---\n**{f.path}:{anchored.line}** ({f.side})\n\n{comment_body(anchored)}")
    return "\n\n".join(parts)


def _dry_run(settings: Settings, inp: ReviewInput, plan: Plan, fmt: str, branch: str) -> str:
    prompt, coverage = plan.prompt, plan.coverage
    price = DEFAULT_PRICES.get(settings.model)
    reuse = plan.reuse_tokens
    estimate = cost(price, prompt.tokens, reuse, EXPECTED_COMPLETION_TOKENS) if price else None
    data: dict[str, Any] = {
        "model": settings.model, "affinity": inp.affinity, "prompt_tokens_estimate": prompt.tokens,
        "budget_tokens": inp.prompt.options.budget_tokens, "chars_per_token": inp.prompt.chars_per_token,
        "expected_cached_tokens": reuse, "previous_review": inp.previous_layout is not None,
        "estimated_cost_usd": None if estimate is None else round(estimate, 6),
        "sections": [{"name": s.name, "tokens": s.tokens, "items": list(s.items)} for s in prompt.sections],
        "skipped": list(prompt.skipped), "coverage": coverage.as_json(),
    }
    if fmt == "json":
        return json.dumps(data, indent=2)
    lines = [f"Prompt plan for {settings.model} (affinity {inp.affinity})", "", "Sections, in cache order:"]
    for section in prompt.sections:
        lines.append(f"  {section.name:<33} {section.tokens:>8,} tokens  {len(section.items)} item(s)")
    lines.append(f"  {'total':<33} {prompt.tokens:>8,} tokens  (budget {inp.prompt.options.budget_tokens:,}, "
                 f"{inp.prompt.chars_per_token:.2f} chars/token)")
    lines += ["", f"Context files ({len(coverage.context)}):"]
    lines += [f"  {p} ({t:,} tokens): {r}" for p, r, t in coverage.context] or ["  (none)"]
    if coverage.left_out:  # related, but weakly or at too high a price: the context is a ceiling, not a target
        lines += ["", f"Related but left out ({len(coverage.left_out)}):"]
        lines += [f"  {p}: {w}" for p, w in coverage.left_out[:40]]
        lines += [f"  … and {len(coverage.left_out) - 40} more"] if len(coverage.left_out) > 40 else []
    if coverage.rules:  # the team's rules files: which applied to how many changed files, which were cut and why
        lines += ["", f"Rules files ({len(coverage.rules)}):"]
        lines += [f"  {p}: {s}" + (f" to {len(f)} file(s)" if f and s in ("applied", "truncated") else "")
                  + (f" ({w})" if w else "") for p, s, w, f in coverage.rules]
    lines += ["", f"Diff: {len(coverage.reviewed)} file(s) in full, {len(coverage.partial)} in part"]
    lines += [f"  in part: {p}: {w}" for p, w in coverage.partial]
    lines += [f"  not reviewed: {p}: {r}" for p, r in coverage.skipped]
    lines += [f"  note: {n}" for n in coverage.notes]
    if coverage.left_out:
        lines += ["", f"Related but left out ({len(coverage.left_out)}):"]
        lines += [f"  {p}: {r}" for p, r in coverage.left_out]
    if inp.previous_layout is None:
        lines += ["", f"expected cache reuse: none (no earlier review of {branch})"]
    else:
        share = reuse / prompt.tokens if prompt.tokens else 0.0
        lines += ["", f"expected cache reuse vs the last review of {branch}: {reuse:,} of {prompt.tokens:,} "
                      f"tokens ({share:.0%})"]
    if estimate is not None:
        lines.append(f"estimated cost: ${estimate:.4f} (with {reuse:,} cached tokens, assuming "
                     f"{EXPECTED_COMPLETION_TOKENS:,} completion tokens)")
    return "\n".join(lines)
