"""Our own retry budget: arq's job_try also counts waits for a free slot, which are not failures."""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable
from typing import Any

from arq import Retry

from reviewbot.errors import PermanentError, RetryableError, Waiting
from reviewbot.state import keys

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 5
MAX_DEFER_S = 300.0


async def retry_later(redis: Any, job_id: str, exc: RetryableError, *, first_s: float) -> None:
    """Raise arq's Retry with a defer, unless this job already failed MAX_ATTEMPTS times (then return).

    The n-th failure defers by `first_s` × 2ⁿ⁻¹ (REVIEWBOT_RETRY_DELAY; at most MAX_DEFER_S) unless GitHub or the
    provider said when to come back. Waiting (the provider's queue, our rate limit) is not a failure and never uses
    up the budget."""
    if isinstance(exc, Waiting):
        raise Retry(defer=exc.retry_after or 10.0) from exc
    key = keys.attempts_key(job_id)
    attempts = int(await redis.incr(key))
    await redis.expire(key, keys.STATE_TTL)
    if attempts >= MAX_ATTEMPTS:
        await redis.delete(key)
        return
    defer = exc.retry_after if exc.retry_after is not None else min(MAX_DEFER_S, first_s * 2 ** (attempts - 1))
    raise Retry(defer=defer * (0.8 + 0.4 * random.random())) from exc  # noqa: S311 - jitter


def wait_for_slot() -> Retry:
    """Come back soon: the installation's concurrent reviews are at their limit."""
    return Retry(defer=1.0 + 2.0 * random.random())  # noqa: S311 - jitter


async def forget(redis: Any, job_id: str) -> None:
    await redis.delete(keys.attempts_key(job_id))


async def settled(redis: Any, job_id: str, what: str, fields: dict[str, Any],
                  work: Awaitable[dict[str, Any]], *, first_s: float) -> dict[str, Any]:
    """A small job's work, with its failures settled: a retryable one runs the job again within the retry budget
    (then ends it, said), a permanent one ends it, said; success forgets earlier failures."""
    try:
        outcome = await work
    except RetryableError as exc:
        await retry_later(redis, job_id, exc, first_s=first_s)
        log.error(f"{what} gave up", extra={**fields, "error": str(exc)})
        return {"outcome": "failed", "reason": str(exc)}
    except PermanentError as exc:
        log.warning(f"{what} failed", extra={**fields, "error": str(exc)})
        return {"outcome": "failed", "reason": str(exc)}
    await forget(redis, job_id)
    return outcome
