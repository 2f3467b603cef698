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


# Which models read images (OpenAI `image_url` content parts). K2.5: `vision: "true"` in the Workers AI model
# JSON; K2.6 and K2.7-code: the model cards (MoonViT encoder, image-text-to-text); the Workers AI catalogue's own
# flag for K2.7-code is not verified. REVIEWBOT_VISION=on|off overrides this table.
VISION: dict[str, bool] = {
    "@cf/moonshotai/kimi-k2.5": True,
    "@cf/moonshotai/kimi-k2.6": True,
    "@cf/moonshotai/kimi-k2.7-code": True,
}


def supports_vision(model: str, override: str = "auto") -> bool:
    """Whether to send images to `model`: the override when it is on or off, else the table (unknown: no)."""
    if override in ("on", "off"):
        return override == "on"
    return VISION.get(model, False)
