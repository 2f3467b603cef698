"""The usage ledger: one record per review or audit in a Redis stream trimmed by age, plus per-day totals."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from redis.exceptions import WatchError

from reviewbot.state.shared_keys import LEDGER_DAY_PREFIX, LEDGER_STREAM

STREAM = LEDGER_STREAM
DAY_PREFIX = LEDGER_DAY_PREFIX
MICRO = 1_000_000
PAGE = 1_000
FAILED = ("failed", "error", "timeout")  # what the dashboard and `usage` count as failures
AUDITED = "audited"  # a finished audit's record (`pr`: the pull request it audited, else 0)


@dataclass(frozen=True)
class Entry:
    """A review's record; `at` (epoch seconds) and `id` come from the stream id when read back."""

    repo: str
    pr: int
    sha: str
    outcome: str  # reviewed, failed, error, timeout, superseded, skipped, paused, budget; audited (an audit);
    # a fix's pushed, suggested, pull-request, declined:<reason>, and its CI result (ci-passed, ci-failed)
    reason: str = ""
    trigger: str = ""
    installation: int = 0
    duration_s: float = 0.0
    queued_s: float = 0.0
    files_reviewed: int = 0
    files_skipped: int = 0
    comments: int = 0
    critical: int = 0
    major: int = 0
    minor: int = 0
    nit: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    saved_usd: float = 0.0
    requests: int = 0
    async_requests: int = 0
    model: str = ""
    job_id: str = ""
    delivery: str = ""
    kind: str = ""  # "fix" for a fix (outcome pushed, suggested or declined:<reason>); "" for reviews and the rest
    at: float = 0.0
    id: str = ""

    @property
    def is_audit(self) -> bool:
        return self.outcome == AUDITED

    @property
    def time(self) -> datetime:
        return datetime.fromtimestamp(self.at, UTC)

    def row(self) -> dict[str, Any]:
        """The CSV/JSON form: an ISO time first, then every field."""
        data = {"time": self.time.strftime("%Y-%m-%dT%H:%M:%SZ"), **dataclasses.asdict(self)}
        data.pop("at")
        data.pop("id")
        data["cost_usd"], data["saved_usd"] = round(self.cost_usd, 6), round(self.saved_usd, 6)
        return data


FIELDS = [f.name for f in dataclasses.fields(Entry) if f.name not in ("at", "id")]
COLUMNS = ["time", *FIELDS]
_TYPES = {f.name: {"int": int, "float": float}.get(str(f.type), str) for f in dataclasses.fields(Entry)}


@dataclass(frozen=True)
class Day:
    date: str
    runs: int = 0
    reviews: int = 0
    failures: int = 0
    cost_usd: float = 0.0
    saved_usd: float = 0.0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    fixes: int = 0

    @property
    def cache_ratio(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0


class Ledger:
    """Appends trim entries older than `days`; day totals expire with them."""

    def __init__(self, redis: Any, days: int) -> None:
        self.redis = redis
        self.days = days

    async def record(self, entry: Entry, *, now: float, stream_id: str = "*") -> None:
        """Append one record (`stream_id` is only given when seeding history in order)."""
        async with self.redis.pipeline(transaction=True) as pipe:
            self._append(pipe, entry, now, stream_id)
            await pipe.execute()

    async def record_once(self, entry: Entry, *, now: float, once: str, ttl_s: int) -> bool:
        """Append one record unless the key `once` says it was (set in the same transaction, kept `ttl_s`): a job
        that runs again, or two at once, record one entry. True when appended now."""
        async with self.redis.pipeline(transaction=True) as pipe:
            try:
                await pipe.watch(once)
                if await pipe.exists(once):
                    return False
                pipe.multi()
                pipe.set(once, "1", ex=ttl_s)
                self._append(pipe, entry, now, "*")
                await pipe.execute()
            except WatchError:  # another run set it between the check and the append
                return False
        return True

    def _append(self, pipe: Any, entry: Entry, now: float, stream_id: str) -> None:
        fields = {name: str(getattr(entry, name)) for name in FIELDS}
        day_key = DAY_PREFIX + datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")
        pipe.xadd(STREAM, fields, id=stream_id, minid=int((now - self.days * 86_400) * 1000),
                  approximate=False)  # exact: each append removes only the few records that just aged out
        pipe.hincrby(day_key, "runs", 1)
        pipe.hincrby(day_key, "reviews", int(entry.outcome == "reviewed"))
        pipe.hincrby(day_key, "failures", int(entry.outcome in FAILED))
        # A fix's CI result (ci-passed, ci-failed) is a second record of the same fix, not another fix.
        pipe.hincrby(day_key, "fixes", int(entry.kind == "fix" and not entry.outcome.startswith("ci-")))
        pipe.hincrby(day_key, "micro_usd", round(entry.cost_usd * MICRO))
        pipe.hincrby(day_key, "micro_saved", round(entry.saved_usd * MICRO))
        pipe.hincrby(day_key, "prompt_tokens", entry.prompt_tokens)
        pipe.hincrby(day_key, "cached_tokens", entry.cached_tokens)
        pipe.expire(day_key, (self.days + 2) * 86_400)

    async def size(self) -> int:
        return int(await self.redis.xlen(STREAM))

    async def entries(self, since: float | None = None, repo: str | None = None,
                      on_page: Callable[[int], None] | None = None) -> AsyncIterator[Entry]:
        """Oldest first, read in pages; `on_page(n)` reports progress for big ledgers."""
        start = "-" if since is None else str(int(since * 1000))
        while True:
            page = await self.redis.xrange(STREAM, min=start, max="+", count=PAGE)
            if on_page is not None:
                on_page(len(page))
            for stream_id, fields in page:
                entry = parse(stream_id, fields)
                if repo is None or entry.repo.lower() == repo.lower():
                    yield entry
            if len(page) < PAGE:
                return
            start = "(" + page[-1][0].decode()

    async def recent(self, count: int) -> list[Entry]:
        return [parse(i, f) for i, f in await self.redis.xrevrange(STREAM, count=count)]

    async def per_day(self, days: int, now: float) -> list[Day]:
        """The last `days` UTC days, oldest first, zeros where nothing ran."""
        today = datetime.fromtimestamp(now, UTC).date()
        dates = [(today - timedelta(days=n)).isoformat() for n in range(days - 1, -1, -1)]
        async with self.redis.pipeline(transaction=False) as pipe:
            for date in dates:
                pipe.hgetall(DAY_PREFIX + date)
            stored = await pipe.execute()
        result = []
        for date, raw in zip(dates, stored, strict=True):
            got = {k.decode(): int(v) for k, v in raw.items()}
            result.append(Day(date, runs=got.get("runs", 0), reviews=got.get("reviews", 0),
                              failures=got.get("failures", 0), cost_usd=got.get("micro_usd", 0) / MICRO,
                              saved_usd=got.get("micro_saved", 0) / MICRO,
                              prompt_tokens=got.get("prompt_tokens", 0), cached_tokens=got.get("cached_tokens", 0),
                              fixes=got.get("fixes", 0)))
        return result


def parse(stream_id: bytes | str, fields: dict[bytes, bytes]) -> Entry:
    """A stream record back into an Entry; unknown fields (a newer writer) are ignored, missing ones default."""
    sid = stream_id.decode() if isinstance(stream_id, bytes) else stream_id
    values: dict[str, Any] = {}
    for key, raw in fields.items():
        name = key.decode()
        if name in _TYPES and name not in ("at", "id"):
            try:
                values[name] = _TYPES[name](raw.decode())
            except ValueError:
                continue
    return Entry(**{"repo": "", "pr": 0, "sha": "", "outcome": "", **values}, at=int(sid.split("-")[0]) / 1000,
                 id=sid)
