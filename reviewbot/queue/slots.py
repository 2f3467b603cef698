"""Per-installation concurrency: a lease set in Redis shared by every worker process (atomic Lua)."""

from __future__ import annotations

import time
from typing import Any

from reviewbot.state import keys

# Members are job ids scored by lease expiry; expired leases (a killed worker) free themselves.
ACQUIRE = """
local key, now, limit, member, ttl = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZSCORE', key, member) or redis.call('ZCARD', key) < limit then
  redis.call('ZADD', key, now + ttl, member)
  redis.call('EXPIRE', key, math.ceil(ttl * 2))
  return 1
end
return 0
"""


class InstallationSlots:
    """At most `limit` running reviews per installation across all workers; others wait, never dropped."""

    def __init__(self, redis: Any, limit: int, lease_s: float) -> None:
        self.redis = redis
        self.limit = limit
        self.lease_s = lease_s

    async def acquire(self, installation_id: int, job_id: str) -> bool:
        got = await self.redis.eval(ACQUIRE, 1, keys.slots_key(installation_id), time.time(), self.limit,
                                    job_id, self.lease_s)
        return bool(got)

    async def release(self, installation_id: int, job_id: str) -> None:
        await self.redis.zrem(keys.slots_key(installation_id), job_id)

    async def running(self, installation_id: int) -> int:
        key = keys.slots_key(installation_id)
        await self.redis.zremrangebyscore(key, "-inf", time.time())
        return int(await self.redis.zcard(key))
