"""The one grammar for `--since`: a span back from now (30m, 24h, 7d, 2w), or for `usage` also a date."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from reviewbot.errors import ConfigError

_SPAN = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhdw])$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_span(text: str) -> timedelta:
    """`90s`, `30m`, `24h`, `7d`, `2w`: how far back to look."""
    match = _SPAN.match(text.strip().lower())
    if match is None:
        raise ConfigError(f"--since must look like 30m, 24h, 7d or 2w, got {text!r}")
    return timedelta(seconds=float(match.group(1)) * _SECONDS[match.group(2)])


def parse_since(text: str, now: float) -> datetime:
    """A span back from `now`, or an ISO date/time (UTC unless it says otherwise)."""
    if _SPAN.match(text.strip().lower()):
        return datetime.fromtimestamp(now, UTC) - parse_span(text)
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError(f"--since takes a span like 7d, 24h, 30m, 2w or a date like 2026-10-01, got {text!r}") \
            from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
