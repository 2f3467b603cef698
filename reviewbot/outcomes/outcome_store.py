"""The outcome records in Redis, one hash per installation and repository, and the query API over them:
`OutcomeStore(redis).rates(repo, since, by)` is what the dashboard, `reviewbot stats` and rule proposals read."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from redis.exceptions import WatchError

from reviewbot.outcomes.rates import rates
from reviewbot.outcomes.records import FindingRecord, Group, Rate
from reviewbot.state.keys import OUTCOME_TTL, OUTCOMES_PREFIX, outcomes_key

SCAN_COUNT = 200
MAX_TRIES = 20  # optimistic transactions before the last, unwatched write


class OutcomeStore:
    """Read and write posted findings' records; a record older than `ttl` seconds is dropped when read."""

    def __init__(self, redis: Any, ttl: float = OUTCOME_TTL) -> None:
        self.redis = redis
        self.ttl = ttl

    async def posted(self, records: Sequence[FindingRecord]) -> list[FindingRecord]:
        """Remember newly posted findings; returns those not known before (a retried job adds nothing twice)."""
        if not records:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for record in records:
            pipe.hsetnx(outcomes_key(record.installation, record.repo), record.field, record.to_json())
        for key in {outcomes_key(r.installation, r.repo) for r in records}:
            pipe.expire(key, int(self.ttl))
        added = await pipe.execute()
        return [r for r, new in zip(records, added[:len(records)], strict=True) if new]

    async def save(self, records: Sequence[FindingRecord]) -> None:
        if records:
            pipe = self.redis.pipeline(transaction=False)
            for record in records:
                pipe.hset(outcomes_key(record.installation, record.repo), record.field, record.to_json())
            await pipe.execute()

    async def update(self, installation: int, repo: str, fields: Sequence[str],
                     change: Callable[[FindingRecord], FindingRecord]) -> list[tuple[FindingRecord, FindingRecord]]:
        """Apply `change` to the records at `fields` (`PR:fingerprint`) in one optimistic transaction, again from a
        fresh read if another writer (a dismissal, the close job) wrote the hash meanwhile, so neither write is
        lost. Returns (before, after) for every record found; only changed ones are written."""
        key = outcomes_key(installation, repo)
        async with self.redis.pipeline(transaction=True) as pipe:
            for _ in range(MAX_TRIES - 1):
                try:
                    await pipe.watch(key)
                    raws = await pipe.hmget(key, list(fields)) if fields else []
                    olds = [r for raw in raws if raw is not None and (r := FindingRecord.from_json(raw)) is not None]
                    pairs = [(old, change(old)) for old in olds]
                    pipe.multi()
                    for old, new in pairs:
                        if new != old:
                            pipe.hset(key, new.field, new.to_json())
                    await pipe.execute()
                    return pairs
                except WatchError:
                    continue
            # Written meanwhile every time (a hash busy with one repository's reviews): the last try without the
            # watch, which is what every write did before; a lost race costs one record's latest outcome.
            olds = [r for raw in await self.redis.hmget(key, list(fields)) if raw is not None
                    and (r := FindingRecord.from_json(raw)) is not None] if fields else []
            pairs = [(old, change(old)) for old in olds]
            await self.save([new for old, new in pairs if new != old])
            return pairs

    async def get(self, installation: int, repo: str, pr: int, fingerprint: str) -> FindingRecord | None:
        raw = await self.redis.hget(outcomes_key(installation, repo), f"{pr}:{fingerprint}")
        return FindingRecord.from_json(raw) if raw is not None else None

    async def of_pull(self, installation: int, repo: str, pr: int) -> list[FindingRecord]:
        """The findings posted on one pull request, in the order they were posted."""
        found = []
        async for _, raw in self.redis.hscan_iter(outcomes_key(installation, repo), match=f"{int(pr)}:*",
                                                   count=SCAN_COUNT):
            if (record := FindingRecord.from_json(raw)) is not None:
                found.append(record)
        return sorted(found, key=lambda r: (r.posted_at, r.path, r.line))

    async def records(self, repo: str | None = None, since: float = 0.0,
                      now: float | None = None) -> list[FindingRecord]:
        """Every record (or one repository's, in any installation) posted at or after `since`."""
        now = time.time() if now is None else now
        pattern = f"{OUTCOMES_PREFIX}*:{repo.lower()}" if repo else f"{OUTCOMES_PREFIX}*"
        found: list[FindingRecord] = []
        async for key in self.redis.scan_iter(match=pattern, count=SCAN_COUNT):
            raw = await self.redis.hgetall(key)
            kept, expired = [], []
            for field, value in raw.items():
                record = FindingRecord.from_json(value)
                if record is None or record.posted_at < now - self.ttl:
                    expired.append(field)
                else:
                    kept.append(record)
            if expired:
                await self.redis.hdel(key, *expired)
            found += [r for r in kept if r.posted_at >= since and (repo is None or r.repo.lower() == repo.lower())]
        return sorted(found, key=lambda r: (r.posted_at, r.repo, r.pr))

    async def rates(self, repo: str | None = None, since: float = 0.0, by: Group | None = "category",
                    now: float | None = None) -> list[Rate]:
        """Resolution and dismissal rates per value of `by` (None: one row) over findings posted since `since`;
        e.g. `rates("acme/app", since, "category")` finds a category with a low resolution rate."""
        return rates(await self.records(repo, since, now), by, since)
