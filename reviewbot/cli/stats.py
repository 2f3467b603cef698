"""`reviewbot stats [--repo R] [--since D] [--format table|json]`: what people did with posted findings, as
resolution and dismissal rates (the store and Redis are imported when the command runs)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import IO, TYPE_CHECKING

from reviewbot.cli.common import Subparsers, load_settings, redis_url
from reviewbot.cli.durations import parse_since
from reviewbot.errors import RetryableError

if TYPE_CHECKING:
    from reviewbot.outcomes.records import Group, Rate

GROUPS: tuple[Group, ...] = ("repo", "category", "severity", "cwe", "model")
DEFAULT_SINCE = "30d"


def add(sub: Subparsers) -> None:
    stats = sub.add_parser("stats", help="resolution and dismissal rates of posted findings")
    stats.add_argument("--repo", help="only this repository (owner/name)")
    stats.add_argument("--since", default=DEFAULT_SINCE,
                       help=f"findings posted since: a span (7d, 24h, 2w) or a date (default: {DEFAULT_SINCE})")
    stats.add_argument("--format", choices=["table", "json"], default="table", help="default: table")
    stats.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    since = parse_since(args.since, time.time()).timestamp()
    settings = load_settings(quiet=True)
    url, embedded = redis_url(settings)
    try:
        return stats_command(url, args.repo, since, args.format)
    finally:
        if embedded is not None:
            embedded.stop()


def stats_command(url: str, repo: str | None, since: float, fmt: str = "table", out: IO[str] | None = None) -> int:
    import asyncio

    from redis.exceptions import RedisError

    out = sys.stdout if out is None else out
    try:
        total, groups = asyncio.run(_read(url, repo, since))
    except (RedisError, OSError) as exc:
        raise RetryableError(f"cannot read the outcomes from Redis ({type(exc).__name__}); check REDIS_URL") \
            from None
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since))
    if fmt == "json":
        out.write(json.dumps({"repo": repo, "since": when, "total": total.as_json(),
                              "by": {g: [r.as_json() for r in rows] for g, rows in groups.items()}}, indent=2) + "\n")
    else:
        out.write(_table(repo, when, total, groups))
    return 0


async def _read(url: str, repo: str | None, since: float) -> tuple[Rate, dict[str, list[Rate]]]:
    from redis.asyncio import Redis

    from reviewbot.outcomes.outcome_store import OutcomeStore
    from reviewbot.outcomes.rates import rates, total

    redis = Redis.from_url(url, socket_connect_timeout=5)
    try:
        records = await OutcomeStore(redis).records(repo, since)
    finally:
        await redis.aclose()
    return total(records), {g: rates(records, g) for g in GROUPS}


def _table(repo: str | None, when: str, total: Rate, groups: dict[str, list[Rate]]) -> str:
    where = repo or "every repository"
    if not total.posted:
        return f"No findings posted in {where} since {when}.\n"
    lines = [f"Findings posted in {where} since {when}: {total.posted} ({total.pending} on open pull requests)",
             f"Resolution rate {total.resolution_rate:.0%} (fixed ÷ posted), dismissal rate "
             f"{total.dismissal_rate:.0%}", ""]
    head = f"{'':<28} {'posted':>6} {'fixed':>5} {'dism.':>5} {'resolv.':>7} {'open':>5} {'pend.':>5} " \
           f"{'resol.%':>7} {'dism.%':>6} {'+1':>4} {'-1':>4}"
    for group, rows in groups.items():
        lines += [f"by {group}", head]
        for r in rows:
            lines.append(f"{r.key[:28]:<28} {r.posted:>6} {r.fixed:>5} {r.dismissed:>5} {r.resolved:>7} "
                         f"{r.open_at_merge + r.open_at_close:>5} {r.pending:>5} {r.resolution_rate:>7.0%} "
                         f"{r.dismissal_rate:>6.0%} {r.thumbs_up:>4} {r.thumbs_down:>4}")
        lines.append("")
    return "\n".join(lines)
