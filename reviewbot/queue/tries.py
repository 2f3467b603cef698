"""What earlier tries of a job spent (a review that waited on the provider's queue runs several times)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reviewbot.model import Usage
from reviewbot.state.keys import STATE_TTL, tries_key

MICRO = 1_000_000
_COUNTS = ("prompt_tokens", "cached_tokens", "completion_tokens", "reasoning_tokens", "requests", "async_requests")


@dataclass(frozen=True)
class Earlier:
    started: float | None  # when the first try started; None when this is the first
    usage: Usage
    saved_usd: float
    model: str


def _key(job_id: str) -> str:
    return tries_key(job_id)


async def add_try(redis: Any, job_id: str, started: float, usage: Usage, saved_usd: float, model: str) -> None:
    """Keep a try that ends in a retry; the try that ends the job takes it back with `take_tries`."""
    key = _key(job_id)
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hsetnx(key, "started", repr(started))
        for name in _COUNTS:
            pipe.hincrby(key, name, getattr(usage, name))
        pipe.hincrby(key, "micro_usd", round(usage.cost_usd * MICRO))
        pipe.hincrby(key, "micro_saved", round(saved_usd * MICRO))
        if model:
            pipe.hset(key, "model", model)
        pipe.expire(key, STATE_TTL)
        await pipe.execute()


async def take_tries(redis: Any, job_id: str) -> Earlier:
    key = _key(job_id)
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hgetall(key)
        pipe.delete(key)
        raw, _ = await pipe.execute()
    got = {k.decode(): v.decode() for k, v in raw.items()}
    counts = {name: int(got.get(name, 0)) for name in _COUNTS}
    return Earlier(started=float(got["started"]) if "started" in got else None,
                   usage=Usage(**counts, cost_usd=int(got.get("micro_usd", 0)) / MICRO),
                   saved_usd=int(got.get("micro_saved", 0)) / MICRO, model=got.get("model", ""))
