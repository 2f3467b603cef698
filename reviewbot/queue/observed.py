"""Wrap a job function: every try is measured, and every review's end (exceptions too) is written once."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arq import Retry
from redis.exceptions import RedisError

from reviewbot.errors import LeaseLost, Waiting
from reviewbot.inference.pricing import cost
from reviewbot.model import Usage
from reviewbot.observe.jobcontext import ModelRequest, Scope, bind
from reviewbot.observe.ledger import Entry, Ledger
from reviewbot.observe.logs import REDACTOR, Redactor
from reviewbot.observe.metrics import (
    COST,
    JOBS,
    MODEL_LATENCY,
    MODEL_REQUESTS,
    RATE_LIMIT,
    REVIEW_DURATION,
    SAVED,
    TOKENS,
    Batch,
    job_ended,
    job_started,
)
from reviewbot.queue.tries import add_try, take_tries
from reviewbot.repos.leases import job_holds
from reviewbot.settings import Settings
from reviewbot.settings.catalogue import Price

log = logging.getLogger(__name__)
JobFunction = Callable[..., Coroutine[Any, Any, dict[str, Any]]]


@dataclass(frozen=True)
class End:
    outcome: str
    reason: str = ""
    final: bool = True  # False when arq runs the job again (a retry, a wait, a cancelled try)


def observed(fn: JobFunction, function: str) -> JobFunction:
    """`fn` as an arq job that also takes the webhook's `delivery` id and reports how each try ended."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    async def run(ctx: dict[str, Any], *args: Any, delivery: str | None = None, **kwargs: Any) -> dict[str, Any]:
        started = time.time()
        with bind(delivery=delivery, **_describe(signature, ctx, args, kwargs)) as scope:
            await job_started(ctx["redis"], str(scope.fields.get("job_id")), ctx["settings"].job_timeout + 60,
                              started)
            end = End("error")
            try:
                async with job_holds():  # the cached trees this try reads stay until it ends
                    result = await fn(ctx, *args, **kwargs)
                end = End(str(result.get("outcome", "")), str(result.get("reason") or ""))
                return result
            except Retry as exc:
                cause = exc.__cause__
                end = End("waiting" if isinstance(cause, Waiting) else "retry" if cause else "requeued", final=False)
                raise
            except asyncio.CancelledError:
                end = _cancelled(ctx["settings"], time.time() - started)
                raise
            except LeaseLost as exc:  # another worker runs the job now and records how it ends
                end = End("lease lost", str(exc), final=False)
                return {"outcome": "lease lost", "reason": str(exc)}
            except Exception as exc:  # recorded, then re-raised for arq to handle as before
                end = End("error", f"{type(exc).__name__}: {exc}")
                raise
            finally:
                await _finish(ctx, function, scope, end, started)

    return run


def _cancelled(settings: Settings, elapsed: float) -> End:
    """arq cancels a job at its timeout (and fails it for good) or at shutdown (and runs it again)."""
    if elapsed >= settings.job_timeout - 1:
        return End("timeout", f"the review did not finish within REVIEWBOT_JOB_TIMEOUT ({settings.job_timeout:.0f}s)")
    return End("cancelled", final=False)


def _describe(signature: inspect.Signature, ctx: dict[str, Any], args: tuple[Any, ...],
              kwargs: dict[str, Any]) -> dict[str, Any]:
    try:
        bound = signature.bind(ctx, *args, **kwargs)
    except TypeError:
        return {"job_id": ctx.get("job_id")}  # the call itself will fail and say why
    bound.apply_defaults()
    a = bound.arguments
    return {"job_id": ctx.get("job_id"), "repo": a.get("repo"), "pr": a.get("number"), "sha": a.get("head_sha"),
            "installation": a.get("installation_id"), "trigger": a.get("trigger")}


async def _finish(ctx: dict[str, Any], function: str, scope: Scope, end: End, started: float) -> None:
    redis, settings = ctx["redis"], ctx["settings"]
    installation = str(scope.fields.get("installation", ""))
    batch = Batch()
    batch.inc(JOBS, function=function, outcome=end.outcome)
    for request in scope.requests:
        _request_metrics(batch, settings, installation, request)
    for port in scope.ports:
        if (remaining := port.rate_limit()) is not None:
            batch.set(RATE_LIMIT, remaining[0], installation=installation)
    try:
        # A conversation or fix job that made no model request (refused, a dismissal, asked again) costs nothing
        # and is not recorded.
        if function == "review" or (function in ("conversation", "fix") and scope.requests):
            await _ledger(ctx, settings, scope, end, started, batch, function)
    except (RedisError, OSError) as exc:
        log.warning("ledger not written: Redis unavailable", extra={"error": type(exc).__name__})
    await batch.send(redis)
    await job_ended(redis, str(scope.fields.get("job_id")))


def _request_metrics(batch: Batch, settings: Settings, installation: str, request: ModelRequest) -> None:
    model, u = request.model, request.usage
    batch.inc(MODEL_REQUESTS, model=model, installation=installation, mode="async" if request.via_async else "sync")
    if not request.via_async:  # an answer fetched from the provider's queue has no meaningful latency
        batch.observe(MODEL_LATENCY, request.latency_s, model=model)
    for kind, count in (("prompt", u.prompt_tokens), ("cached", u.cached_tokens),
                        ("completion", u.completion_tokens), ("reasoning", u.reasoning_tokens)):
        batch.inc(TOKENS, count, model=model, installation=installation, kind=kind)
    batch.inc(COST, u.cost_usd, model=model, installation=installation)
    batch.inc(SAVED, savings(settings, model, u), model=model, installation=installation)


def savings(settings: Settings, model: str, usage: Usage) -> float:
    """What the cached tokens would have cost more at the uncached input price."""
    price: Price | None = settings.prices.get(model) or settings.prices.get(settings.model)
    if price is None or not usage.cached_tokens:
        return 0.0
    uncached = cost(price, usage.prompt_tokens, 0, usage.completion_tokens)
    return uncached - cost(price, usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens)


async def _ledger(ctx: dict[str, Any], settings: Settings, scope: Scope, end: End, started: float,
                  batch: Batch, function: str = "review") -> None:
    redis, job_id, now = ctx["redis"], str(scope.fields.get("job_id")), time.time()
    usage = scope.usage
    saved = sum(savings(settings, r.model, r.usage) for r in scope.requests)
    if not end.final:
        await add_try(redis, job_id, started, usage, saved, scope.model)
        return
    earlier = await take_tries(redis, job_id)
    first = earlier.started or started
    enqueued = ctx.get("enqueue_time")
    queued_s = max(0.0, first - enqueued.timestamp()) if isinstance(enqueued, datetime) else 0.0
    total = earlier.usage + usage
    facts, f = scope.report, scope.fields
    findings = facts.findings if facts else {}
    entry = Entry(
        repo=str(f.get("repo", "")), pr=int(f.get("pr") or 0), sha=str(f.get("sha", "")), outcome=end.outcome,
        reason=_scrub(settings, end.reason), trigger=str(f.get("trigger", "")),
        installation=int(f.get("installation") or 0), duration_s=round(now - first, 3), queued_s=round(queued_s, 3),
        files_reviewed=facts.files_reviewed if facts else 0, files_skipped=facts.files_skipped if facts else 0,
        comments=facts.comments if facts else 0, critical=findings.get("critical", 0),
        major=findings.get("major", 0), minor=findings.get("minor", 0), nit=findings.get("nit", 0),
        prompt_tokens=total.prompt_tokens, cached_tokens=total.cached_tokens,
        completion_tokens=total.completion_tokens, cost_usd=total.cost_usd, saved_usd=earlier.saved_usd + saved,
        requests=total.requests, async_requests=total.async_requests, model=scope.model or earlier.model,
        job_id=job_id, delivery=str(f.get("delivery", "")), kind="fix" if function == "fix" else "")
    await Ledger(redis, settings.ledger_days).record(entry, now=now)
    if function == "review":
        batch.observe(REVIEW_DURATION, now - first, outcome=end.outcome)


def _scrub(settings: Settings, reason: str) -> str:
    """Failure reasons are shown on the dashboard: no configured secret or issued token may be in them."""
    return Redactor([*settings.secrets, *REDACTOR.secrets]).scrub(reason)[:500]
