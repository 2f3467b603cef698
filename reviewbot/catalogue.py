"""The models reviewbot knows and their prices (USD per million tokens), overridable by REVIEWBOT_PRICES."""

from __future__ import annotations

import json
from dataclasses import dataclass


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
