"""A failed job's retries: REVIEWBOT_RETRY_DELAY sets the first wait, each next one doubles, the fifth failure ends."""

from __future__ import annotations

import pytest
from arq import Retry
from redis.asyncio import Redis

from reviewbot.errors import ConfigError, RetryableError
from reviewbot.queue.retries import MAX_ATTEMPTS, retry_later
from reviewbot.settings import Settings


async def waits(redis_url: str, first_s: float, exc: RetryableError) -> list[float]:
    """The defers (seconds) of one job failing until its retry budget is spent."""
    found: list[float] = []
    async with Redis.from_url(redis_url) as redis:
        for _ in range(MAX_ATTEMPTS):
            try:
                await retry_later(redis, "job-1", exc, first_s=first_s)
            except Retry as retry:
                found.append((retry.defer_score or 0) / 1000)
    return found


async def test_the_default_first_retry_waits_ten_seconds_and_each_next_one_twice_as_long(redis_url: str) -> None:
    first_s = Settings.from_mapping({}).retry_delay
    found = await waits(redis_url, first_s, RetryableError("GitHub answered 502"))
    assert len(found) == MAX_ATTEMPTS - 1  # the last failure is not retried: the job ends and says so
    for wait, expected in zip(found, (10, 20, 40, 80), strict=True):
        assert expected * 0.8 <= wait <= expected * 1.2  # ±20% jitter


async def test_a_shorter_first_delay_shortens_every_retry_and_a_retry_after_still_wins(redis_url: str) -> None:
    found = await waits(redis_url, 0.5, RetryableError("the model is busy"))
    for wait, expected in zip(found, (0.5, 1, 2, 4), strict=True):
        assert expected * 0.8 <= wait <= expected * 1.2
    told = await waits(redis_url, 0.5, RetryableError("rate limited", retry_after=30.0))
    assert all(24 <= w <= 36 for w in told)


@pytest.mark.parametrize("raw", ["0", "-1", "soon"])
def test_a_retry_delay_that_is_not_a_positive_number_is_refused(raw: str) -> None:
    with pytest.raises(ConfigError, match="REVIEWBOT_RETRY_DELAY"):
        Settings.from_mapping({"REVIEWBOT_RETRY_DELAY": raw})
