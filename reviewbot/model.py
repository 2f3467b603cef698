"""What a review needs from a model, in types both `review/` and `inference/` import: usage, answers, ports."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

T_co = TypeVar("T_co", covariant=True)


@dataclass(frozen=True)
class Usage:
    """Tokens and dollars of one or more model requests; cached tokens are part of prompt tokens."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float = 0.0
    requests: int = 0
    async_requests: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            requests=self.requests + other.requests,
            async_requests=self.async_requests + other.async_requests,
        )

    @property
    def cache_ratio(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def as_json(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "cached_tokens": self.cached_tokens,
                "completion_tokens": self.completion_tokens, "cost_usd": round(self.cost_usd, 6)}


@dataclass(frozen=True)
class ModelAnswer(Generic[T_co]):
    """A validated answer, what it cost, and which model actually served it."""

    output: T_co
    usage: Usage
    model: str


class Reviewer(Protocol[T_co]):
    """Asks the model to review: the conversation so far, and the PR's session-affinity key."""

    async def review(self, messages: list[dict[str, str]], affinity: str) -> ModelAnswer[T_co]: ...


class Verifier(Protocol[T_co]):
    """Asks the model to check the candidates numbered `ids`, on the review's cached prefix."""

    async def verify(self, messages: list[dict[str, str]], ids: Sequence[int], affinity: str) -> T_co: ...
