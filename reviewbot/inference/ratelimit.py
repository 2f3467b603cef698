"""Our own per-account request rate (a token bucket in Redis), below the provider's per-minute limit."""

from __future__ import annotations

import time
from typing import Any

from reviewbot.state.shared_keys import ratelimit_key

# State: tokens `t` at time `ts`. A request takes one token; when none is left, the caller learns how long to
# wait and nothing is consumed, so waiting callers never starve each other into 429s.
TAKE = """
local key, rate, burst, now = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens = tonumber(redis.call('HGET', key, 't') or burst)
local ts = tonumber(redis.call('HGET', key, 'ts') or now)
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate)
if tokens >= 1 then
  redis.call('HSET', key, 't', tokens - 1, 'ts', now)
  redis.call('EXPIRE', key, 3600)
  return '0'
end
return tostring((1 - tokens) / rate)
"""


class RequestBucket:
    """`requests_per_minute` sustained, with bursts up to a tenth of a minute's worth."""

    def __init__(self, redis: Any, account: str, requests_per_minute: float) -> None:
        self.redis = redis
        self.key = ratelimit_key(account)
        self.rate = requests_per_minute / 60.0
        self.burst = max(1.0, requests_per_minute / 10.0)

    async def take(self) -> float:
        """0 when a request may go now, else the seconds to wait before asking again."""
        wait = await self.redis.eval(TAKE, 1, self.key, self.rate, self.burst, time.time())
        return float(wait.decode() if isinstance(wait, bytes) else wait)
