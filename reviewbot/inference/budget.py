"""Daily budgets per installation and per repository (dollars and tokens), held before money is spent.

A review holds its estimated cost before it starts and grows its hold before each request; every paid request is
charged as it arrives, whatever the review's outcome, and the hold is released when the review ends. Holds and
charges are Lua scripts, so concurrent reviews in any number of workers cannot together pass a limit."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from reviewbot.errors import OverBudget, Waiting
from reviewbot.inference.pricing import cost
from reviewbot.model import Usage
from reviewbot.settings import Settings
from reviewbot.state.shared_keys import charged_key, held_key, spend_keys

MICRO = 1_000_000
NO_LIMIT = -1

# KEYS: per scope (installation, repository) its spend hash then its holds hash. ARGV: job, now, lease, need in
# micro-dollars and tokens, then per scope its two limits (-1: none). A job's hold only grows here; fields of the
# holds hash are "micro_usd tokens expires_at", and expired holds (a crashed worker's) are dropped on the way.
RESERVE = """
local job, now, lease = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local need = {tonumber(ARGV[4]), tonumber(ARGV[5])}
local grown = {}
for s = 1, #KEYS / 2 do
  local spend, holds = KEYS[2 * s - 1], KEYS[2 * s]
  local spent = {tonumber(redis.call('HGET', spend, 'micro_usd') or '0'),
                 tonumber(redis.call('HGET', spend, 'tokens') or '0')}
  local used = {spent[1], spent[2]}
  local mine = {0, 0}
  local flat = redis.call('HGETALL', holds)
  for i = 1, #flat, 2 do
    local usd, tok, expires = string.match(flat[i + 1], '(%S+) (%S+) (%S+)')
    if tonumber(expires) < now then
      redis.call('HDEL', holds, flat[i])
    elseif flat[i] == job then
      mine = {tonumber(usd), tonumber(tok)}
    else
      used[1], used[2] = used[1] + tonumber(usd), used[2] + tonumber(tok)
    end
  end
  local hold = {math.max(mine[1], need[1]), math.max(mine[2], need[2])}
  for k = 1, 2 do
    local limit = tonumber(ARGV[5 + 2 * (s - 1) + k])
    if limit >= 0 and used[k] + hold[k] > limit then
      return {s, k, used[k] + mine[k], limit, spent[k]}
    end
  end
  grown[s] = hold
end
for s = 1, #KEYS / 2 do
  redis.call('HSET', KEYS[2 * s], job, grown[s][1] .. ' ' .. grown[s][2] .. ' ' .. (now + lease))
  redis.call('EXPIRE', KEYS[2 * s], 3 * 86400)
end
return {0}
"""

# KEYS as above, then optionally the request's charged mark; ARGV: job, micro-dollars, tokens. The spend is counted
# and the job's hold shrinks by as much, unless the mark says this request was charged already.
CHARGE = """
local job, usd, tok = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if #KEYS % 2 == 1 and not redis.call('SET', KEYS[#KEYS], job, 'NX', 'EX', 3 * 86400) then
  return 1
end
for s = 1, math.floor(#KEYS / 2) do
  redis.call('HINCRBY', KEYS[2 * s - 1], 'micro_usd', usd)
  redis.call('HINCRBY', KEYS[2 * s - 1], 'tokens', tok)
  redis.call('EXPIRE', KEYS[2 * s - 1], 3 * 86400)
  local held = redis.call('HGET', KEYS[2 * s], job)
  if held then
    local husd, htok, expires = string.match(held, '(%S+) (%S+) (%S+)')
    redis.call('HSET', KEYS[2 * s], job, math.max(0, tonumber(husd) - usd) .. ' '
               .. math.max(0, tonumber(htok) - tok) .. ' ' .. expires)
  end
end
return 0
"""


class BudgetSpent(OverBudget):
    """A daily budget cannot cover what the review (or its next request) would cost; nothing was sent."""


class BudgetBusy(Waiting):
    """What is spent leaves room, but reviews running now hold it: try again when they have settled."""


@dataclass(frozen=True)
class Limits:
    usd: float | None = None
    tokens: int | None = None

    def argv(self) -> list[int]:
        return [NO_LIMIT if self.usd is None or math.isinf(self.usd) else round(self.usd * MICRO),
                NO_LIMIT if self.tokens is None else self.tokens]


@dataclass(frozen=True)
class Spent:
    usd: float
    tokens: int
    held_usd: float
    held_tokens: int


class DailyBudget:
    """Counters per installation and per repository and UTC day in Redis, shared by every worker."""

    def __init__(self, redis: Any, installation: Limits, repository: Limits = Limits(), lease_s: float = 3_600) -> None:
        self.redis = redis
        self.limits = (installation, repository)
        self.lease_s = lease_s

    @staticmethod
    def scopes(installation_id: int, repo: str) -> list[str]:
        return spend_keys(installation_id, repo, today())

    def _keys(self, installation_id: int, repo: str) -> list[str]:
        return [k for spend in self.scopes(installation_id, repo) for k in (spend, held_key(spend))]

    async def reserve(self, installation_id: int, repo: str, job: str, usd: float, tokens: int) -> None:
        """Hold (at least) this much for `job`; BudgetSpent, with a sentence for the check run, when it won't fit."""
        argv = [job, int(datetime.now(UTC).timestamp()), int(self.lease_s), round(usd * MICRO), tokens,
                *self.limits[0].argv(), *self.limits[1].argv()]
        answer = await self.redis.eval(RESERVE, 4, *self._keys(installation_id, repo), *argv)
        if int(answer[0]) != 0:
            scope, kind, used, limit, spent = (int(x) for x in answer)
            if spent + (round(usd * MICRO) if kind == 1 else tokens) <= limit:
                # It fits what is spent; only the holds of reviews running now are in the way: wait for them.
                raise BudgetBusy("waiting for reviews in progress to settle the daily budget", retry_after=30.0)
            raise BudgetSpent(_sentence(scope, kind, used, limit, usd, tokens))

    async def charge(self, installation_id: int, repo: str, job: str, usage: Usage, once: str | None = None) -> None:
        """Count one paid request, whatever becomes of the review that made it; with `once` (a queued request's
        id) only the first charge under that name counts (the answer may be fetched again after a crash)."""
        keys = self._keys(installation_id, repo)
        if once is not None:
            keys.append(charged_key(installation_id, once))
        await self.redis.eval(CHARGE, len(keys), *keys, job, round(usage.cost_usd * MICRO),
                              usage.prompt_tokens + usage.completion_tokens)

    async def release(self, installation_id: int, repo: str, job: str) -> None:
        for key in self._keys(installation_id, repo)[1::2]:
            await self.redis.hdel(key, job)

    async def spent(self, key: str) -> Spent:
        """Today's spend and current holds of one scope (a key from `scopes`), for `reviewbot doctor`."""
        raw = await self.redis.hgetall(key)
        holds = [v.split() for v in (await self.redis.hgetall(key.replace(":spend:", ":held:"))).values()]
        return Spent(int(raw.get(b"micro_usd", 0)) / MICRO, int(raw.get(b"tokens", 0)),
                     sum(int(h[0]) for h in holds) / MICRO, sum(int(h[1]) for h in holds))


def review_estimate(settings: Settings) -> tuple[float, int]:
    """What a review (or a thread answer) is expected to cost at most, held before it starts: a full prompt for the
    review and one for a verification batch, each with its completion, within the review's token budget."""
    completion = settings.max_completion_tokens or 16_000
    prompt = min(settings.review_token_budget, 2 * settings.prompt_budget)
    tokens = min(settings.review_token_budget, prompt + 2 * completion)
    price = settings.prices.get(settings.model)
    usd = 0.0 if price is None else cost(price, tokens - 2 * completion, 0, 2 * completion)
    return usd, tokens


def today() -> str:
    """Budgets run over UTC days."""
    return datetime.now(UTC).strftime("%Y-%m-%d")


def _sentence(scope: int, kind: int, used: int, limit: int, usd: float, tokens: int) -> str:
    where = "installation" if scope == 1 else "repository"
    variable = ("REVIEWBOT_DAILY_BUDGET" if scope == 1 else "REVIEWBOT_REPO_DAILY_BUDGET") + (
        "_USD" if kind == 1 else "_TOKENS")
    if kind == 1:
        amounts = f"${limit / MICRO:.2f}; ${used / MICRO:.2f} spent or held, this review needs ${usd:.2f}"
    else:
        amounts = f"{limit:,} tokens; {used:,} spent or held, this review needs {tokens:,}"
    return (f"Today's review budget for this {where} ({amounts}) would be passed. Reviews resume at 00:00 UTC, "
            f"or raise {variable}.")
