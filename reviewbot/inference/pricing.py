"""Token usage and its price: cached tokens are part of prompt tokens and cost less."""

from __future__ import annotations

from typing import Any

from reviewbot.model import Usage
from reviewbot.settings.catalogue import Price


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
