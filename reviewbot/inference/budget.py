"""Per-installation daily budgets (dollars and/or tokens): spent budgets stop new reviews, visibly."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from reviewbot.model import Usage

MICRO = 1_000_000


class DailyBudget:
    """Counters per installation and UTC day in Redis, shared by every worker."""

    def __init__(self, redis: Any, max_usd: float | None, max_tokens: int | None) -> None:
        self.redis = redis
        self.max_usd = max_usd
        self.max_tokens = max_tokens

    def _key(self, installation_id: int) -> str:
        return f"reviewbot:spend:{installation_id}:{datetime.now(UTC).strftime('%Y-%m-%d')}"

    async def exhausted(self, installation_id: int) -> str | None:
        """A sentence for the check run when today's budget is spent; None while there is room."""
        if self.max_usd is None and self.max_tokens is None:
            return None
        raw = await self.redis.hgetall(self._key(installation_id))
        spent_usd = int(raw.get(b"micro_usd", 0)) / MICRO
        spent_tokens = int(raw.get(b"tokens", 0))
        if self.max_usd is not None and spent_usd >= self.max_usd:
            return (f"Today's review budget for this installation (${self.max_usd:.2f}) is spent "
                    f"(${spent_usd:.2f} used). Reviews resume at 00:00 UTC, or raise REVIEWBOT_DAILY_BUDGET_USD.")
        if self.max_tokens is not None and spent_tokens >= self.max_tokens:
            return (f"Today's review budget for this installation ({self.max_tokens:,} tokens) is spent "
                    f"({spent_tokens:,} used). Reviews resume at 00:00 UTC, or raise REVIEWBOT_DAILY_BUDGET_TOKENS.")
        return None

    async def record(self, installation_id: int, usage: Usage) -> None:
        key = self._key(installation_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hincrby(key, "micro_usd", round(usage.cost_usd * MICRO))
            pipe.hincrby(key, "tokens", usage.prompt_tokens + usage.completion_tokens)
            pipe.expire(key, 3 * 86_400)
            await pipe.execute()
