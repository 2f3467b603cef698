"""The models reviewbot knows: prices and capabilities from Cloudflare's model catalogue (specs/workers-ai/)."""

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


@dataclass(frozen=True)
class Capabilities:
    """What a model accepts, as its published model JSON says; behaviour follows these, not assumptions."""

    context_window: int
    async_queue: bool  # `?queueRequest=true` batches; without it capacity errors are deferred instead
    function_calling: bool
    vision: bool
    reasoning: bool
    thinking_parameter: str | None  # the `chat_template_kwargs` key that switches thinking; None: send nothing
    thinking_always_on: bool  # the schema accepts only `true` (the switch cannot turn thinking off)
    price: Price | None
    requires_paid_plan: bool = False
    deprecated_on: str | None = None  # planned_deprecation_date
    successor: str | None = None  # the model deprecated requests are aliased to
    known: bool = True


# Derived from the pinned model JSONs by capabilities_from_spec (tests/unit/inference/test_catalogue.py keeps the
# two equal); run specs/refresh.py, then update this table when Cloudflare changes a model.
CATALOGUE: dict[str, Capabilities] = {
    "@cf/moonshotai/kimi-k2.5": Capabilities(
        context_window=256_000, async_queue=False, function_calling=True, vision=True, reasoning=True,
        thinking_parameter="enable_thinking", thinking_always_on=False, price=Price(0.60, 0.10, 3.00),
        deprecated_on="2026-05-30",
        # The changelog (2026-05-08 "Planned model deprecations"): K2.5 requests are aliased to K2.6.
        successor="@cf/moonshotai/kimi-k2.6"),
    "@cf/moonshotai/kimi-k2.6": Capabilities(
        context_window=262_144, async_queue=True, function_calling=True, vision=True, reasoning=True,
        thinking_parameter="enable_thinking", thinking_always_on=False, price=Price(0.95, 0.16, 4.00),
        requires_paid_plan=True),
    "@cf/moonshotai/kimi-k2.7-code": Capabilities(
        context_window=262_144, async_queue=False, function_calling=True, vision=True, reasoning=True,
        thinking_parameter="enable_thinking", thinking_always_on=True, price=Price(0.95, 0.19, 4.00),
        requires_paid_plan=True),
}
# An unknown model gets nothing it might refuse: no asynchronous queue, no thinking switch, a modest window.
UNKNOWN = Capabilities(context_window=32_768, async_queue=False, function_calling=True, vision=False,
                       reasoning=False, thinking_parameter=None, thinking_always_on=False, price=None, known=False)
DEFAULT_PRICES: dict[str, Price] = {model: caps.price for model, caps in CATALOGUE.items() if caps.price}


def capabilities(model: str) -> Capabilities:
    """The model's capabilities; safe defaults (known=False) for a model not in the catalogue."""
    return CATALOGUE.get(model, UNKNOWN)


def _flag(value: Any) -> bool:
    return str(value).lower() == "true"


def capabilities_from_spec(spec: dict[str, Any]) -> Capabilities:
    """Capabilities from a pinned model JSON (specs/workers-ai/*.json); pure, no I/O."""
    props = spec.get("properties") or {}
    prices = {str(p.get("unit")): float(p.get("price")) for p in props.get("price") or []}
    price = None
    if prices:
        price = Price(prices.get("per M input tokens", 0.0), prices.get("per M cached input tokens", 0.0),
                      prices.get("per M output tokens", 0.0))
    kwargs = (spec["schema"]["input"]["$defs"]["messages"]["properties"].get("chat_template_kwargs") or {})
    switches = [k for k in (kwargs.get("properties") or {}) if k in ("enable_thinking", "thinking")]
    parameter = switches[0] if switches else None
    always_on = parameter is not None and kwargs["properties"][parameter].get("enum") == [True]
    return Capabilities(
        context_window=int(props.get("context_window") or UNKNOWN.context_window),
        async_queue=_flag(props.get("async_queue")), function_calling=_flag(props.get("function_calling")),
        vision=_flag(props.get("vision")), reasoning=_flag(props.get("reasoning")), thinking_parameter=parameter,
        thinking_always_on=always_on, price=price, requires_paid_plan=_flag(props.get("require_workers_paid")),
        deprecated_on=props.get("planned_deprecation_date"))


def model_warnings(model: str, thinking: bool | None) -> list[str]:
    """What an operator should hear at start-up and in `reviewbot doctor` about the configured model."""
    caps = capabilities(model)
    if not caps.known:
        return [f"model {model} is not in reviewbot's catalogue: no asynchronous queue, no thinking switch, "
                f"a {caps.context_window:,}-token window and no price are assumed (set REVIEWBOT_PRICES to price it)"]
    out = []
    if caps.deprecated_on:
        out.append(f"model {model} is deprecated since {caps.deprecated_on}"
                   + (f"; the provider serves (and prices) requests as {caps.successor}" if caps.successor else ""))
    if thinking is False and caps.thinking_always_on:
        out.append(f"model {model} always thinks: REVIEWBOT_MODEL_THINKING=off is not sent")
    return out


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


def supports_vision(model: str, override: str = "auto") -> bool:
    """Whether to send images to `model`: REVIEWBOT_VISION when it is on or off, else the published `vision`
    property of the model (unknown models: no)."""
    if override in ("on", "off"):
        return override == "on"
    return capabilities(model).vision
