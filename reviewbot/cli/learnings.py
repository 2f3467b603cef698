"""`reviewbot learnings list|forget`: the findings each repository dismissed in review threads (the store and Redis
are imported when the command runs, so that every other command starts without them)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import IO, TYPE_CHECKING, Any

from reviewbot.cli.common import Subparsers, load_settings, redis_url
from reviewbot.errors import RetryableError

if TYPE_CHECKING:
    from reviewbot.state.learnings_store import Stored


def add(sub: Subparsers) -> None:
    learnings = sub.add_parser("learnings", help="findings dismissed in review threads, which reviews hold back")
    actions = learnings.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="every remembered dismissal (newest first)")
    listing.add_argument("--repo", help="only this repository (owner/name)")
    listing.add_argument("--format", choices=["table", "json"], default="table", help="default: table")
    listing.set_defaults(handler=_run)
    forget = actions.add_parser("forget", help="forget one dismissal: its finding may be raised again")
    forget.add_argument("repo", help="owner/name")
    forget.add_argument("key", help="the key `learnings list` shows")
    forget.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    settings = load_settings(quiet=True)
    url, embedded = redis_url(settings)
    try:
        return learnings_command(url, args.action, getattr(args, "repo", None), getattr(args, "key", ""),
                                 getattr(args, "format", "table"), ttl_days=settings.learning_ttl_days)
    finally:
        if embedded is not None:
            embedded.stop()


def learnings_command(url: str, action: str, repo: str | None, key: str = "", fmt: str = "table",
                      out: IO[str] | None = None, ttl_days: int | None = None) -> int:
    import asyncio

    from redis.exceptions import RedisError

    from reviewbot.state.learnings_store import DEFAULT_TTL_DAYS

    out = sys.stdout if out is None else out
    try:
        return asyncio.run(_act(url, action, repo, key, fmt, out, DEFAULT_TTL_DAYS if ttl_days is None else ttl_days))
    except (RedisError, OSError) as exc:
        raise RetryableError(f"cannot read the learnings from Redis ({type(exc).__name__}); check REDIS_URL") \
            from None


async def _act(url: str, action: str, repo: str | None, key: str, fmt: str, out: IO[str], ttl_days: int) -> int:
    from redis.asyncio import Redis

    from reviewbot.state.learnings_store import Learnings

    redis = Redis.from_url(url, socket_connect_timeout=5)
    try:
        store = Learnings(redis, ttl_days)
        if action == "forget":
            assert repo is not None
            if await store.forget(repo, key):
                out.write(f"Forgot {key} in {repo}: the finding may be raised again.\n")
                return 0
            print(f"reviewbot: no learning {key!r} in {repo}", file=sys.stderr)
            return 1
        found = await (store.of(repo) if repo else store.everywhere())
        out.write(json.dumps([_row(s) for s in found], indent=2) + "\n" if fmt == "json" else _table(found))
        return 0
    finally:
        await redis.aclose()


def _row(s: Stored) -> dict[str, Any]:
    return {"repo": s.repo, "key": s.key, "title": s.title, "rule": s.learning.rule, "path": s.learning.path,
            "severity": s.learning.severity, "cwe": s.learning.cwe, "reason": s.learning.reason,
            "by": s.learning.by, "pr": s.pr,
            "source": s.learning.source, "scope": "repository" if s.learning.repository else "pull request",
            "time": _iso(s.at), "expires": _iso(s.expires)}


def _iso(when: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))


def _table(found: list[Stored]) -> str:
    if not found:
        return "No dismissals remembered. (Rules in .github/reviewbot.yml `learnings:` apply too.)\n"
    lines = []
    for s in found:
        when = time.strftime("%Y-%m-%d", time.gmtime(s.at))
        scope = "everywhere" if s.learning.repository else "this PR only"
        where = f"#{s.pr}" if s.pr else s.learning.source  # an alert dismissed in code scanning has no PR
        lines.append(f"{s.repo}  {s.key}  {s.learning.reason or '-'}  by {s.learning.by or '?'} on {when}"
                     f"  {where} ({scope}, until {s.expires_day})  {s.learning.path}: {s.title or s.learning.rule}")
    return "\n".join(lines) + "\n"
