"""Answers and pending async requests keyed by the request's bytes, so a re-run job replays instead of re-paying.

A review that went to the provider's asynchronous queue ends its job and comes back later; the new run builds
the same prompt (same SHA, same inputs), and each request it would send finds its answer here.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Protocol

from reviewbot.state.keys import MEMO_TTL, memo_prefix

TTL_S = MEMO_TTL


def request_key(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class RequestMemo(Protocol):
    async def result(self, key: str) -> dict[str, Any] | None: ...
    async def save_result(self, key: str, completion: dict[str, Any]) -> None: ...
    async def pending(self, key: str) -> str | None: ...
    async def save_pending(self, key: str, request_id: str) -> None: ...
    async def clear_pending(self, key: str) -> None: ...


class RedisMemo:
    """Scoped to one review job; shared by every worker, so any of them can pick the review up again."""

    def __init__(self, redis: Any, scope: str) -> None:
        self.redis = redis
        self.prefix = memo_prefix(scope)

    async def result(self, key: str) -> dict[str, Any] | None:
        raw = await self.redis.get(f"{self.prefix}:done:{key}")
        return dict(json.loads(raw)) if raw else None

    async def save_result(self, key: str, completion: dict[str, Any]) -> None:
        await self.redis.set(f"{self.prefix}:done:{key}", json.dumps(completion), ex=TTL_S)

    async def pending(self, key: str) -> str | None:
        raw = await self.redis.get(f"{self.prefix}:pending:{key}")
        return raw.decode() if raw else None

    async def save_pending(self, key: str, request_id: str) -> None:
        await self.redis.set(f"{self.prefix}:pending:{key}", request_id, ex=TTL_S)
        await self.redis.sadd(f"{self.prefix}:waiting", key)
        await self.redis.expire(f"{self.prefix}:waiting", TTL_S)

    async def clear_pending(self, key: str) -> None:
        await self.redis.delete(f"{self.prefix}:pending:{key}")
        await self.redis.srem(f"{self.prefix}:waiting", key)

    async def waiting(self) -> list[tuple[str, str]]:
        """(request key, request id) of every request of this scope still in the provider's queue: a job can poll
        them without building its prompts again."""
        keys = sorted(k.decode() for k in await self.redis.smembers(f"{self.prefix}:waiting"))
        ids = await self.redis.mget([f"{self.prefix}:pending:{k}" for k in keys]) if keys else []
        return [(k, i.decode()) for k, i in zip(keys, ids, strict=True) if i]

    async def clear(self) -> None:
        """Forget the whole scope once the review is over, so a later re-run asks the model afresh."""
        stale = [key async for key in self.redis.scan_iter(match=f"{self.prefix}:*", count=500)]
        if stale:
            await self.redis.delete(*stale)


class MemoryMemo:
    """For the CLI, which waits in-process instead of re-enqueuing."""

    def __init__(self) -> None:
        self.done: dict[str, dict[str, Any]] = {}
        self.waiting: dict[str, str] = {}

    async def result(self, key: str) -> dict[str, Any] | None:
        return self.done.get(key)

    async def save_result(self, key: str, completion: dict[str, Any]) -> None:
        self.done[key] = completion

    async def pending(self, key: str) -> str | None:
        return self.waiting.get(key)

    async def save_pending(self, key: str, request_id: str) -> None:
        self.waiting[key] = request_id

    async def clear_pending(self, key: str) -> None:
        self.waiting.pop(key, None)
