"""Remembered dismissals per repository in Redis, plus those written in `.github/reviewbot.yml`."""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from reviewbot.review.findings.dismissals import Learning, normalise_rule
from reviewbot.state.keys import LEARNINGS_PREFIX

if TYPE_CHECKING:  # the web process (dashboard) reads learnings without loading the configuration schema
    from reviewbot.review.config import LearningRule

PREFIX = LEARNINGS_PREFIX  # + repo → hash: code key (`…#prN` for one PR, `rule:…`) → JSON
DAY = 86_400.0
DEFAULT_TTL_DAYS = 180
_FIELDS = {f.name: f for f in dataclasses.fields(Learning)}


@dataclass(frozen=True)
class Stored:
    """One remembered dismissal, the hash field it is kept under, and when it expires."""

    repo: str
    key: str  # the hash field: what `reviewbot learnings forget` takes
    learning: Learning
    expires: float = 0.0

    @property
    def pr(self) -> int:
        return self.learning.pr

    @property
    def title(self) -> str:
        return self.learning.title

    @property
    def at(self) -> float:
        return self.learning.at

    @property
    def expires_day(self) -> str:
        return time.strftime("%Y-%m-%d", time.gmtime(self.expires))


class Learnings:
    """Read and write a repository's dismissals. Each lasts `ttl_days` from the dismissal; an expired one is
    dropped when read. Every method is one Redis round trip or a scan."""

    def __init__(self, redis: Any, ttl_days: float = DEFAULT_TTL_DAYS) -> None:
        self.redis = redis
        self.ttl = ttl_days * DAY

    async def remember(self, repo: str, learning: Learning, *, now: float | None = None) -> str:
        learning = dataclasses.replace(learning, at=now if now is not None else time.time(),
                                       title=learning.title[:300])
        key = learning.store_key
        await self.redis.hset(PREFIX + repo, key, json.dumps(asdict(learning)))
        return key

    async def forget(self, repo: str, key: str) -> bool:
        return bool(await self.redis.hdel(PREFIX + repo, key))

    async def forget_code(self, repo: str, code_key: str, number: int) -> list[str]:
        """Forget what was remembered about this code: repository-wide, and for pull request `number`."""
        keys = [code_key, f"{code_key}#pr{number}"]
        gone = [k for k in keys if await self.redis.hdel(PREFIX + repo, k)]
        return gone

    async def of(self, repo: str, now: float | None = None) -> list[Stored]:
        now = time.time() if now is None else now
        raw = await self.redis.hgetall(PREFIX + repo)
        found = [s for k, v in raw.items() if (s := self._stored(repo, _text(k), _text(v))) is not None]
        expired = [s.key for s in found if s.expires <= now]
        if expired:
            await self.redis.hdel(PREFIX + repo, *expired)
        return sorted((s for s in found if s.expires > now), key=lambda s: -s.at)

    async def everywhere(self, now: float | None = None) -> list[Stored]:
        repos = [_text(k).removeprefix(PREFIX) async for k in self.redis.scan_iter(match=PREFIX + "*")]
        out: list[Stored] = []
        for repo in sorted(repos):
            out += await self.of(repo, now)
        return out

    def _stored(self, repo: str, key: str, raw: str) -> Stored | None:
        try:
            data = json.loads(raw)
            values = {name: type(getattr(_DEFAULT, name))(data[name]) for name in _FIELDS if name in data}
            learning = Learning(**values)
        except (ValueError, KeyError, TypeError):
            return None  # a damaged entry is skipped, never fatal to a review
        return Stored(repo, key, learning, learning.at + self.ttl)


_DEFAULT = Learning(rule="")


def from_config(entries: list[LearningRule]) -> tuple[Learning, ...]:
    """The `learnings:` of the repository's configuration file, as rules to hold findings back with."""
    return tuple(Learning(rule=normalise_rule(e.rule), path=e.path, reason=e.reason or "configured",
                          source="config") for e in entries if normalise_rule(e.rule))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
