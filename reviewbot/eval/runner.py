"""One case through the real review engine (context, passes, verification), with the real model or its recording."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import httpx
from pydantic import ValidationError

from reviewbot.errors import ConfigError, ModelQueued, ReviewbotError
from reviewbot.eval.candidates import posted
from reviewbot.eval.scoring import CaseResult, Judge, match
from reviewbot.eval.replay import Recorder, Replay
from reviewbot.eval.suite import Case
from reviewbot.inference.client import ModelClient
from reviewbot.inference.memo import MemoryMemo
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.inference.tools import RepoTools
from reviewbot.inference.verify_request import StructuredVerifier
from reviewbot.inference.factory import model_client
from reviewbot.review.config import RepoConfig, context_options, precision
from reviewbot.review.prompt.sections import PromptInput
from reviewbot.review.engine import ReviewInput, ReviewResult, affinity_id, run_review
from reviewbot.review.findings.refine import ReviewerPort as Reviewer
from reviewbot.review.findings.refine import VerifierPort as Verifier
from reviewbot.settings import Settings

log = logging.getLogger(__name__)
REPLAY_URL = "http://recorded.invalid/v1"  # never resolved: the replay transport answers in-process


@dataclass(frozen=True)
class RunOptions:
    model: Literal["real", "fake"] = "fake"
    judge: Judge | None = None
    overrides: tuple[tuple[str, Any], ...] = ()  # config keys set for every case (--verify, --passes)
    record: bool = False


async def run_case(case: Case, settings: Settings, http: httpx.AsyncClient | None, options: RunOptions,
                   judge: Judge) -> CaseResult:
    config = case_config(case, options)
    tools = RepoTools(case.root / "base") if (case.root / "base").is_dir() else None
    prompt = PromptInput(title=case.title, description=case.description, diff=case.diff, base_files=case.base,
                         options=context_options(config, settings.prompt_budget, [f.path for f in case.diff.files],
                                                 tools=tools is not None))
    inp = ReviewInput(prompt=prompt, affinity=affinity_id("eval", case.name), precision=precision(config))
    try:
        if options.model == "fake":
            replay = Replay(case.recorded)
            async with httpx.AsyncClient(transport=replay.transport()) as fake:
                client = ModelClient(http=fake, base_url=REPLAY_URL, model=settings.model, api_token=None,
                                     prices=settings.prices, max_attempts=1)
                result = await review_with(inp, client, tools, settings, None)
        else:
            assert http is not None
            record_to = case.root / "recorded.json" if options.record else None
            result = await review_with(inp, model_client(settings, http), tools, settings, record_to)
    except ReviewbotError as exc:
        log.warning("case failed", extra={"case": case.name, "error": str(exc)})
        return CaseResult(case.name, case.language, case.clean, len(case.expected), (), 0, error=str(exc))
    reported = posted(result, config.severity_threshold)
    checks = result.report.checks
    return CaseResult(case.name, case.language, case.clean, len(case.expected), reported,
                      match(case.expected, reported, judge), usage=result.report.usage,
                      dropped=len(checks.dropped) if checks else 0)


def case_config(case: Case, options: RunOptions) -> RepoConfig:
    try:
        return RepoConfig.model_validate({**case.config, **dict(options.overrides)})
    except ValidationError as exc:
        raise ConfigError(f"{case.name}: invalid config in expected.json: {exc.errors()[0]['msg']}") from None


async def review_with(inp: ReviewInput, client: ModelClient, tools: RepoTools | None, settings: Settings,
                  record_to: Path | None) -> ReviewResult:
    structured = StructuredReviewer(client, memo=MemoryMemo(), tools=tools, max_turns=settings.max_tool_turns,
                                    token_budget=settings.review_token_budget)
    while True:
        attempt = structured.fresh()  # the replayed answers of the last attempt count again
        reviewer: Reviewer = attempt
        verifier: Verifier = StructuredVerifier(attempt)
        recorder = Recorder(reviewer, verifier) if record_to is not None else None
        if recorder is not None:
            reviewer = verifier = recorder
        try:
            result = await run_review(inp, reviewer, verifier)
            break
        except ModelQueued as exc:  # the provider's queue: poll in-process, answers replay from the memo
            await asyncio.sleep(exc.retry_after or 10.0)
    if recorder is not None and record_to is not None:
        await asyncio.to_thread(record_to.write_text, json.dumps(recorder.recorded(), indent=2) + "\n")
    return result
