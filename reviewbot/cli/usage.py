"""`reviewbot usage`: what reviews and audits cost, per repository and in total, from the usage ledger.

Redis, the ledger and rich are imported when the command runs, so that every other command starts without them.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import IO, TYPE_CHECKING

from reviewbot.cli.common import Subparsers, load_settings, redis_url
from reviewbot.cli.durations import parse_since
from reviewbot.errors import ConfigError, RetryableError

if TYPE_CHECKING:
    from rich.table import Table

    from reviewbot.observe.ledger import Entry
    from reviewbot.observe.totals import Summary
    from reviewbot.settings import Settings


def add(sub: Subparsers) -> None:
    usage = sub.add_parser("usage", help="what reviews and audits cost, per repository, from the usage ledger")
    usage.add_argument("--since", default="7d", help="a span (7d, 24h, 2w) or a date (2026-10-01); default 7d")
    usage.add_argument("--repo", help="only this repository (owner/name)")
    usage.add_argument("--format", choices=["table", "csv", "json"], default="table",
                       help="table (whole lines in a pipe), csv or json; default: table")
    usage.add_argument("--records", action="store_true", help="export the ledger's records instead of totals")
    usage.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    settings = load_settings(quiet=True)
    url, embedded = redis_url(settings)
    try:
        return usage_command(settings, url, args.since, args.repo, args.format, args.records)
    finally:
        if embedded is not None:
            embedded.stop()


def usage_command(settings: Settings, redis_url: str, since: str | None, repo: str | None, fmt: str,
                  records: bool, out: IO[str] | None = None) -> int:
    import asyncio

    from redis.exceptions import RedisError

    from reviewbot.observe.totals import records_csv, records_json, summarize

    out = sys.stdout if out is None else out
    try:
        start = parse_since(since, time.time()) if since else None
    except ConfigError as exc:
        print(f"reviewbot: {exc}", file=sys.stderr)
        return 2
    try:
        entries = asyncio.run(_read(settings, redis_url, start.timestamp() if start else None, repo))
    except (RedisError, OSError) as exc:
        raise RetryableError(f"cannot read the usage ledger from Redis ({type(exc).__name__}); check REDIS_URL") \
            from None
    if records:
        out.write(records_json(entries) + "\n" if fmt == "json" else records_csv(entries))
        return 0
    summary = summarize(entries, start)
    if fmt == "json":
        out.write(summary.as_json() + "\n")
    elif fmt == "csv":
        out.write(summary.as_csv())
    else:
        from rich.console import Console

        # Away from a terminal rich assumes 80 columns and wraps every cell; a pipe or a file gets whole lines.
        tty = callable(getattr(out, "isatty", None)) and out.isatty()
        Console(file=out, width=None if tty else 1_000).print(table(summary))
        saved = summary.total.saved_usd
        print(f"The provider's prefix cache served {summary.total.cache_ratio:.0%} of prompt tokens and saved "
              f"${saved:,.2f}: uncached, these reviews and audits would have cost "
              f"${summary.total.cost_usd + saved:,.2f}.", file=out)
    return 0


async def _read(settings: Settings, redis_url: str, since: float | None, repo: str | None) -> list[Entry]:
    from redis.asyncio import Redis

    from reviewbot.observe.ledger import Ledger
    from reviewbot.observe.progress import counting  # rich: only when this command runs

    redis = Redis.from_url(redis_url, socket_connect_timeout=5)
    try:
        ledger = Ledger(redis, settings.ledger_days)
        with counting("reading the usage ledger", await ledger.size()) as advance:
            return [entry async for entry in ledger.entries(since, repo, on_page=advance)]
    finally:
        await redis.aclose()


def table(summary: Summary) -> Table:
    from rich.table import Table

    since = summary.since.strftime("%Y-%m-%d %H:%M UTC") if summary.since else "the start of the ledger"
    grid = Table(title=f"reviewbot usage since {since}", show_footer=True)
    t = summary.total
    columns = [("Repository", "total", "left"), ("Reviews", str(t.reviewed), "right"),
               ("Failed", str(t.failed), "right"), ("Superseded", str(t.superseded), "right"),
               ("Skipped", str(t.skipped), "right"), ("Audits", str(t.audits), "right"),
               ("Fixes", str(t.fixes), "right"), ("Mean time", f"{t.mean_review_s:.0f}s", "right"),
               ("Prompt tokens", f"{t.prompt_tokens:,}", "right"), ("Cached", f"{t.cache_ratio:.0%}", "right"),
               ("Completion", f"{t.completion_tokens:,}", "right"), ("Cost", f"${t.cost_usd:,.2f}", "right"),
               ("Cache saved", f"${t.saved_usd:,.2f}", "right")]
    for header, footer, justify in columns:
        grid.add_column(header, footer=footer, justify=justify)  # type: ignore[arg-type]
    for r in summary.repos:
        grid.add_row(r.repo, str(r.reviewed), str(r.failed), str(r.superseded), str(r.skipped), str(r.audits),
                     str(r.fixes), f"{r.mean_review_s:.0f}s", f"{r.prompt_tokens:,}", f"{r.cache_ratio:.0%}",
                     f"{r.completion_tokens:,}", f"${r.cost_usd:,.2f}", f"${r.saved_usd:,.2f}")
    return grid
