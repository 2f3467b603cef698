"""One review's token allowance: every pass, verification batch and tool turn draws on the same budget.

Each request holds its estimate before it is sent (the prompt's characters at the highest tokens-per-character
ratio seen so far, plus the completion cap) and settles with the billed usage after; concurrent requests of the
review (extra passes, verification batches) hold at the same time, so together they cannot pass the limit."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from reviewbot.errors import OverBudget
from reviewbot.model import Usage
from reviewbot.settings.catalogue import Price

START_TOKENS_PER_CHAR = 1 / 3  # above what code measures (about 1/4) until an answer tells the real ratio
TOOL_SHARE = 0.75  # tool turns stop here: the rest is for the answers, the other passes and the verification
TOOL_GROWTH = 10_000  # tokens a turn of tool answers may add before the answer that follows it

# Told the review's holds (tokens, dollars) before each request: the daily budget grows its hold to match.
Gate = Callable[[int, float], Awaitable[None]]


@dataclass(frozen=True)
class Hold:
    prompt: int
    completion: int
    chars: int

    @property
    def tokens(self) -> int:
        return self.prompt + self.completion


@dataclass
class Allowance:
    limit: int
    completion_cap: int = 16_000
    price: Price | None = None
    spent: int = 0  # billed tokens (prompt + completion) of settled requests
    tokens_per_char: float = START_TOKENS_PER_CHAR
    _held_prompt: int = 0
    _held_completion: int = 0

    @property
    def held(self) -> int:
        return self._held_prompt + self._held_completion

    @property
    def held_usd(self) -> float:
        """What the requests in flight may cost at most (uncached input price)."""
        if self.price is None:
            return 0.0
        return (self._held_prompt * self.price.input + self._held_completion * self.price.output) / 1e6

    def estimate(self, chars: int, completion: int | None = None) -> Hold:
        """The hold of a request of `chars` characters asking for `completion` tokens at most (the cap unless a
        truncated answer is asked again with more room: what is asked is what is held)."""
        return Hold(math.ceil(chars * self.tokens_per_char), completion or self.completion_cap, chars)

    def room_for_tools(self, hold: Hold) -> bool:
        """A tool turn only when this turn and the answer after it (which sees the tool output too) fit."""
        after = hold.tokens + hold.prompt + TOOL_GROWTH + self.completion_cap
        return self.spent + self.held + after <= self.limit * TOOL_SHARE

    def take(self, hold: Hold, what: str) -> Hold:
        if self.spent + self.held + hold.tokens > self.limit:
            raise OverBudget(f"the {what} request (about {hold.tokens:,} tokens) would pass the review's token "
                             f"budget (REVIEWBOT_REVIEW_TOKEN_BUDGET {self.limit:,}; {self.spent:,} spent, "
                             f"{self.held:,} in flight)")
        self._held_prompt += hold.prompt
        self._held_completion += hold.completion
        return hold

    def release(self, hold: Hold) -> None:
        self._held_prompt -= hold.prompt
        self._held_completion -= hold.completion

    def settle(self, hold: Hold, usage: Usage) -> None:
        self.release(hold)
        self.spent += usage.prompt_tokens + usage.completion_tokens
        if hold.chars and usage.prompt_tokens:  # learn the real ratio; never lower it (a later prompt may differ)
            self.tokens_per_char = max(self.tokens_per_char, usage.prompt_tokens / hold.chars)
