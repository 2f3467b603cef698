"""Per-PR and per-user limits on review commands: fixed one-hour windows, counted atomically in Redis."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from reviewbot.state import keys

PER_PR = 10  # review commands per pull request per hour
PER_USER = 30  # review commands per person per hour, over every repository of the installation
WINDOW_S = 3600

# KEYS: PR counter, user counter. ARGV: TTL s, PR limit, user limit. 0 = counted; 1 / 2 = the PR / user limit.
COUNT = """
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[2]) then return 1 end
if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[3]) then return 2 end
for _, key in ipairs(KEYS) do
  redis.call('INCR', key)
  redis.call('EXPIRE', key, ARGV[1])
end
return 0
"""


async def over_limit(redis: Any, installation_id: int, repo: str, number: int, author: str) -> str | None:
    """Count one review command, or refuse it (uncounted) with the polite answer to give when the PR or the person
    has had enough this hour; None when it may go ahead."""
    window = int(time.time() // WINDOW_S)
    pr, user = f"{repo}#{number}", f"user:{installation_id}:{author.lower()}"
    hit = int(await redis.eval(COUNT, 2, keys.command_count_key(pr, window), keys.command_count_key(user, window),
                               2 * WINDOW_S, PER_PR, PER_USER))
    if not hit:
        return None
    again = datetime.fromtimestamp((window + 1) * WINDOW_S, UTC).strftime("%H:%M UTC")
    if hit == 1:
        return (f"Thanks for asking! This pull request has already had {PER_PR} review requests this hour, the most "
                f"reviewbot takes; please ask again after {again}. New pushes are still reviewed automatically.")
    return (f"Thanks for asking! You have already asked for {PER_USER} reviews this hour, the most reviewbot takes "
            f"from one person; please ask again after {again}. New pushes are still reviewed automatically.")


async def first_telling(redis: Any, repo: str, number: int, author: str) -> bool:
    """True the first time this hour that this PR and person are told about a limit: one answer, not one per try."""
    window = int(time.time() // WINDOW_S)
    key = keys.command_count_key(f"told:{repo}#{number}:{author.lower()}", window)
    return bool(await redis.set(key, "1", nx=True, ex=2 * WINDOW_S))
