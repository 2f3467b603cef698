"""GitHub's rate limits: the primary quota read from every response, and writes spaced per installation."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from reviewbot.errors import GitHubRetryable
from reviewbot.state.shared_keys import github_write_key

log = logging.getLogger(__name__)
RESERVE = 5  # requests left untouched so concurrent jobs stop before GitHub answers 403
# How long a crashed writer can hold the shared write slot: a little more than one request's 30 s timeout, so a
# live writer keeps it, and short enough that a killed worker's job, taken up again, completes within a minute.
MAX_WRITE_S = 35.0
DEFAULT_JOB_LEASE_S = 15.0  # REVIEWBOT_JOB_LEASE's default, which MAX_WRITE_S goes with


def write_hold_s(job_lease_s: float) -> float:
    """The write slot's crash hold for a worker whose jobs hold `job_lease_s` leases: MAX_WRITE_S at the default
    lease, in proportion otherwise, so that a killed worker's job still completes soon after its lease lapses."""
    return MAX_WRITE_S * job_lease_s / DEFAULT_JOB_LEASE_S


@dataclass
class Quota:
    remaining: int
    reset_at: float  # epoch seconds
    limit: int = 0


class RateLimits:
    """Shared by every port of a process; keys are installations (`installation:42`) or `app`.

    Writes (POST/PATCH/PUT/DELETE) of one key are spaced `write_interval` apart, counted from the end of
    the previous write: in-process through a lock and a timestamp, across processes through a Redis key.
    """

    def __init__(self, *, redis: Redis | None = None, write_interval: float = 1.0, max_wait: float = 30.0,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep, max_write_s: float = MAX_WRITE_S) -> None:
        """`max_write_s`: how long a writer that died mid-write keeps other processes' writes waiting."""
        self.redis = redis
        self.max_write_s = max_write_s
        self.write_interval = write_interval
        self.max_wait = max_wait
        self._sleep = sleep
        self._quotas: dict[str, Quota] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._last_write: dict[str, float] = {}

    def observe(self, key: str, headers: Mapping[str, Any] | None) -> None:
        """Remember `x-ratelimit-remaining/reset` from a response (success or error)."""
        lowered = {k.lower(): v for k, v in (headers or {}).items()}
        try:
            remaining = int(lowered["x-ratelimit-remaining"])
            reset_at = float(lowered["x-ratelimit-reset"])
            limit = int(lowered.get("x-ratelimit-limit") or 0)
        except (KeyError, ValueError, TypeError):
            return
        known = self._quotas.get(key)
        if known is not None and known.reset_at == reset_at and known.remaining < remaining:
            # Within one window GitHub's count only falls: concurrent requests' answers can be read out of order,
            # and the older, higher count must not hide what was already spent (the gauge, the reserve check).
            return
        self._quotas[key] = Quota(remaining, reset_at, limit)

    def quota(self, key: str) -> Quota | None:
        """The last quota GitHub reported for a key (for the rate-limit gauge), without a request."""
        return self._quotas.get(key)

    async def check_quota(self, key: str, what: str) -> None:
        """Wait for the reset when the quota is (nearly) spent and the reset is near; else ask for a defer."""
        quota = self._quotas.get(key)
        if quota is None or quota.remaining > RESERVE:
            return
        wait = quota.reset_at - time.time() + 1.0  # the reset header has one-second precision
        if wait <= 0:
            return
        if wait > self.max_wait:
            raise GitHubRetryable(f"{what}: GitHub API quota spent ({quota.remaining} left) until "
                                  f"{time.strftime('%H:%M:%S', time.localtime(quota.reset_at))}",
                                  status=403, retry_after=wait)
        log.warning("GitHub API quota nearly spent; waiting for the reset", extra={"key": key, "wait_s": wait})
        await self._sleep(wait)
        self._quotas.pop(key, None)

    async def pause(self, what: str, seconds: float) -> bool:
        """Sleep `seconds` when that is short enough to wait in-process; False means defer the job instead."""
        if seconds > self.max_wait:
            return False
        log.warning("GitHub asked us to slow down; waiting", extra={"what": what, "wait_s": seconds})
        await self._sleep(seconds)
        return True

    @contextlib.asynccontextmanager
    async def write_slot(self, key: str) -> AsyncIterator[None]:
        """Hold the installation's write slot for one content-creating request."""
        async with self._locks.setdefault(key, asyncio.Lock()):
            since = time.monotonic() - self._last_write.get(key, -1e9)
            if since < self.write_interval:
                await self._sleep(self.write_interval - since)
            token = await self._acquire_shared(key)
            try:
                yield
            finally:
                self._last_write[key] = time.monotonic()
                await self._release_shared(key, token)

    async def _acquire_shared(self, key: str) -> str | None:
        if self.redis is None:
            return None
        name, token = github_write_key(key), secrets.token_hex(8)
        try:
            while not await self.redis.set(name, token, nx=True, px=int(self.max_write_s * 1000)):
                left_ms = await self.redis.pttl(name)
                await self._sleep(min(max(left_ms, 10) / 1000, self.write_interval))
        except RedisError as exc:
            log.warning("write spacing falls back to this process only", extra={"error": type(exc).__name__})
            return None
        return token

    async def _release_shared(self, key: str, token: str | None) -> None:
        if self.redis is None or token is None:
            return
        try:
            # The next writer of any process may start `write_interval` after this write ended.
            await self.redis.set(github_write_key(key), token, px=max(1, int(self.write_interval * 1000)))
        except RedisError as exc:
            log.warning("could not release the shared write slot", extra={"error": type(exc).__name__})
