"""Token usage and its price: cached tokens are part of prompt tokens and cost less."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    output: float


DEFAULT_PRICES: dict[str, Price] = {
    "@cf/moonshotai/kimi-k2.5": Price(input=0.60, cached_input=0.10, output=3.00),
    "@cf/moonshotai/kimi-k2.6": Price(input=0.95, cached_input=0.16, output=4.00),
    "@cf/moonshotai/kimi-k2.7-code": Price(input=0.95, cached_input=0.19, output=4.00),
}


@dataclass(frozen=True)
class Usage:
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


def parse_prices(raw: str) -> dict[str, Price]:
    """REVIEWBOT_PRICES: JSON `{"model": [input, cached_input, output]}` (USD per million), over the defaults."""
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object of model → [input, cached_input, output]")
    prices = dict(DEFAULT_PRICES)
    for model, value in data.items():
        if isinstance(value, dict):
            value = [value.get("input"), value.get("cached_input"), value.get("output")]
        if not (isinstance(value, list) and len(value) == 3 and all(isinstance(v, int | float) for v in value)):
            raise ValueError(f"price of {model!r} must be [input, cached_input, output] in USD per million tokens")
        prices[str(model)] = Price(float(value[0]), float(value[1]), float(value[2]))
    return prices


def cost(price: Price, prompt: int, cached: int, completion: int) -> float:
    """(prompt − cached)·input + cached·cached_input + completion·output, per million tokens."""
    cached = min(cached, prompt)
    return ((prompt - cached) * price.input + cached * price.cached_input + completion * price.output) / 1e6


def usage_from_response(body: dict[str, Any], prices: dict[str, Price], requested_model: str) -> Usage:
    """Read OpenAI-style `usage`, priced by the model that actually served the request."""
    raw = body.get("usage") or {}
    prompt = int(raw.get("prompt_tokens") or 0)
    cached = int((raw.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
    completion = int(raw.get("completion_tokens") or 0)
    reasoning = int((raw.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0)
    served = str(body.get("model") or requested_model)
    price = prices.get(served) or prices.get(requested_model)
    dollars = cost(price, prompt, cached, completion) if price else 0.0
    return Usage(prompt_tokens=prompt, cached_tokens=min(cached, prompt), completion_tokens=completion,
                 reasoning_tokens=reasoning, cost_usd=dollars, requests=1)
