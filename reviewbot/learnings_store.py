"""Remembered dismissals per repository in Redis, plus those written in `.github/reviewbot.yml`."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from reviewbot.review.findings.dismissals import Learning, normalise_rule

if TYPE_CHECKING:  # the web process (dashboard) reads learnings without loading the configuration schema
    from reviewbot.review.config import LearningRule

PREFIX = "reviewbot:learnings:"  # + repo → hash: code key (or `rule:…`) → JSON


@dataclass(frozen=True)
class Stored:
    """One remembered dismissal and where it came from."""

    repo: str
    key: str  # the hash field: what `reviewbot learnings forget` takes
    learning: Learning
    pr: int = 0
    title: str = ""
    at: float = 0.0


class Learnings:
    """Read and write a repository's dismissals; every method is one Redis round trip or a scan."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis

    async def remember(self, repo: str, learning: Learning, *, pr: int = 0, title: str = "",
                       now: float | None = None) -> str:
        key = learning.code_key or f"rule:{learning.rule}"
        record = {**asdict(learning), "pr": pr, "title": title[:300], "at": now if now is not None else time.time()}
        await self.redis.hset(PREFIX + repo, key, json.dumps(record))
        return key

    async def forget(self, repo: str, key: str) -> bool:
        return bool(await self.redis.hdel(PREFIX + repo, key))

    async def of(self, repo: str) -> list[Stored]:
        raw = await self.redis.hgetall(PREFIX + repo)
        found = [_stored(repo, _text(k), _text(v)) for k, v in raw.items()]
        return sorted((s for s in found if s is not None), key=lambda s: -s.at)

    async def everywhere(self) -> list[Stored]:
        repos = [_text(k).removeprefix(PREFIX) async for k in self.redis.scan_iter(match=PREFIX + "*")]
        out: list[Stored] = []
        for repo in sorted(repos):
            out += await self.of(repo)
        return out


def from_config(entries: list[LearningRule]) -> tuple[Learning, ...]:
    """The `learnings:` of the repository's configuration file, as rules to hold findings back with."""
    return tuple(Learning(rule=normalise_rule(e.rule), path=e.path, reason=e.reason or "configured",
                          source="config") for e in entries if normalise_rule(e.rule))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _stored(repo: str, key: str, raw: str) -> Stored | None:
    try:
        data = json.loads(raw)
        learning = Learning(rule=str(data["rule"]), code_key=str(data.get("code_key") or ""),
                            path=str(data.get("path") or ""), reason=str(data.get("reason") or ""),
                            by=str(data.get("by") or ""), source=str(data.get("source") or "thread"))
        return Stored(repo, key, learning, int(data.get("pr") or 0), str(data.get("title") or ""),
                      float(data.get("at") or 0.0))
    except (ValueError, KeyError, TypeError):
        return None  # a damaged entry is skipped, never fatal to a review
