"""An audit's state in Redis, shared by every worker (read by the dashboard and `reviewbot audit status` too): its
record, each chunk's result, the lock per branch, the list of audits, and what the last completed audit of a
branch saw per file (for incremental audits)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from reviewbot.audit.service_record import AuditRecord, ChunkResult, ListedAudit
from reviewbot.state.audit_keys import (
    INDEX_KEY,
    LOCK_TTL_S,
    TTL_S,
    callers_key,
    done_key,
    failed_key,
    files_key,
    issue_key,
    plan_key,
    planning_key,
    record_key,
    retired_key,
    running_key,
    schedule_key,
)

KEEP_AUDITS = 200

# KEYS: the chunk's result hash, the other outcome hash. ARGV: chunk index, record JSON, TTL.
# Stores a chunk's outcome once (a second try of the same chunk changes nothing); returns
# {stored (1/0), chunks with an outcome}.
SETTLE = """
local stored = 0
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then
  stored = redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
return {stored, redis.call('HLEN', KEYS[1]) + redis.call('HLEN', KEYS[2])}
"""




class AuditStore:
    def __init__(self, redis: Any) -> None:
        self.redis = redis

    async def lock(self, repo: str, branch: str, audit_id: str) -> str | None:
        """Take the branch's lock for `audit_id`; None when taken (or already ours), else the running audit's id."""
        key = running_key(repo, branch)
        if await self.redis.set(key, audit_id, nx=True, ex=LOCK_TTL_S):
            return None
        holder = await self.redis.get(key)
        held = holder.decode() if holder else ""
        return None if held == audit_id else held or None

    async def running(self, repo: str, branch: str) -> str | None:
        """The id of the audit holding the branch's lock, if one does."""
        holder = await self.redis.get(running_key(repo, branch))
        return holder.decode() if holder else None

    async def unlock(self, repo: str, branch: str, audit_id: str) -> None:
        key = running_key(repo, branch)
        holder = await self.redis.get(key)
        if holder is not None and holder.decode() == audit_id:
            await self.redis.delete(key)

    async def save(self, audit: AuditRecord) -> None:
        """The audit's record (written by the planning and the finishing job, one at a time)."""
        audit_id, record = audit.id, audit.as_json()
        await self.redis.set(record_key(audit_id), json.dumps(record), ex=TTL_S)
        await self.redis.zadd(INDEX_KEY, {audit_id: audit.created or time.time()})
        await self.redis.zremrangebyrank(INDEX_KEY, 0, -KEEP_AUDITS - 1)

    async def load(self, audit_id: str) -> AuditRecord | None:
        raw = await self.redis.get(record_key(audit_id))
        return AuditRecord.from_json(json.loads(raw)) if raw else None

    async def save_plan(self, audit_id: str, plan: dict[str, Any]) -> None:
        await self.redis.set(plan_key(audit_id), json.dumps(plan), ex=TTL_S)

    async def save_callers(self, audit_id: str, callers: dict[str, Any]) -> None:
        """Each audited file's strongest callers (`evidence.callers_of`), for the chunk jobs' evidence steps; kept
        until the audit finishes (at most two days), not with the record (a megabyte for Django's 758 files)."""
        key = callers_key(audit_id)
        if callers:
            await self.redis.hset(key, mapping={p: json.dumps(c) for p, c in callers.items()})
            await self.redis.expire(key, LOCK_TTL_S)

    async def forget_callers(self, audit_id: str) -> None:
        await self.redis.delete(callers_key(audit_id))

    async def callers(self, audit_id: str, paths: Sequence[str]) -> dict[str, Any]:
        if not paths:
            return {}
        raw = await self.redis.hmget(callers_key(audit_id), list(paths))
        return {p: json.loads(r) for p, r in zip(paths, raw, strict=True) if r}

    async def planning_started(self, audit_id: str) -> int:
        """Count a start of the audit's planning step: how many there have been, this one included."""
        key = planning_key(audit_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, LOCK_TTL_S)
            started, _ = await pipe.execute()
        return int(started)

    async def load_plan(self, audit_id: str) -> dict[str, Any] | None:
        """The plan as stored; callers only read it (the same decoded object serves every job that loads it)."""
        raw = await self.redis.get(plan_key(audit_id))
        return _decoded_plan(bytes(raw)) if raw else None

    async def settle(self, audit_id: str, index: int, *, done: ChunkResult | None = None,
                     failed: str | None = None) -> tuple[bool, int]:
        """Store chunk `index`'s outcome (its result, or why it was not audited) unless it has one;
        (stored now, chunks with an outcome)."""
        ours, other = ((done_key(audit_id), failed_key(audit_id)) if done is not None
                       else (failed_key(audit_id), done_key(audit_id)))
        value = json.dumps(done.as_json()) if done is not None else str(failed)
        stored, settled = await self.redis.eval(SETTLE, 2, ours, other, str(index), value, TTL_S)
        return bool(stored), int(settled)

    async def outcome(self, audit_id: str, index: int) -> bool:
        return bool(await self.redis.hexists(done_key(audit_id), str(index))
                    or await self.redis.hexists(failed_key(audit_id), str(index)))

    async def results(self, audit_id: str) -> tuple[dict[int, ChunkResult], dict[int, str]]:
        done = {int(k): json.loads(v) for k, v in (await self.redis.hgetall(done_key(audit_id))).items()}
        failed = {int(k): v.decode() for k, v in (await self.redis.hgetall(failed_key(audit_id))).items()}
        return {i: ChunkResult.from_json(d) for i, d in done.items()}, failed

    async def counts(self, audit_id: str) -> tuple[int, int]:
        return int(await self.redis.hlen(done_key(audit_id))), int(await self.redis.hlen(failed_key(audit_id)))

    async def recent(self, limit: int = 20) -> list[ListedAudit]:
        """The newest audits first, each with its chunks done and failed so far."""
        ids = [i.decode() for i in await self.redis.zrevrange(INDEX_KEY, 0, limit - 1)]
        found = []
        for audit_id in ids:
            record = await self.load(audit_id)
            if record is not None:
                chunks_done, chunks_failed = await self.counts(audit_id)
                spent = record.spent_usd
                if record.status == "running":  # spent so far, from the chunks done
                    done, _ = await self.results(audit_id)
                    spent = round(sum(d.usage.cost_usd for d in done.values()), 4)
                found.append(ListedAudit(record, chunks_done, chunks_failed, spent))
        return found

    async def baseline(self, repo: str, branch: str) -> dict[str, dict[str, Any]]:
        raw = await self.redis.hgetall(files_key(repo, branch))
        return {k.decode(): json.loads(v) for k, v in raw.items()}

    async def remember(self, repo: str, branch: str, files: dict[str, dict[str, Any]], gone: list[str]) -> None:
        """After a completed audit: what it saw in each file it covered; files no longer there are forgotten."""
        key = files_key(repo, branch)
        if files:
            await self.redis.hset(key, mapping={p: json.dumps(v) for p, v in files.items()})
        if gone:
            await self.redis.hdel(key, *gone)
        await self.redis.expire(key, TTL_S * 3)

    async def first_in_period(self, repo: str, period: str) -> bool:
        """True once per repository and schedule period, however many workers ask."""
        return bool(await self.redis.set(schedule_key(repo, period), "1", nx=True, ex=TTL_S))

    async def categories_retired(self, repo: str, branch: str) -> bool:
        return bool(await self.redis.exists(retired_key(repo, branch)))

    async def retire_categories(self, repo: str, branch: str) -> None:
        """The branch's old per-folder code-scanning categories are closed (`retired_categories`)."""
        await self.redis.set(retired_key(repo, branch), "1", ex=TTL_S * 3)

    async def tracking_issue(self, repo: str) -> int | None:
        raw = await self.redis.get(issue_key(repo))
        return int(raw) if raw else None

    async def remember_tracking_issue(self, repo: str, number: int) -> None:
        await self.redis.set(issue_key(repo), str(number))


@lru_cache(maxsize=4)
def _decoded_plan(raw: bytes) -> dict[str, Any]:
    """Keyed by the stored bytes: each chunk job loads the plan twice (to ask, then to collect the queued answer),
    and decoding a large audit's plan each time was the workers' largest single cost (Django: 96 × ~35 ms)."""
    return dict(json.loads(raw))
