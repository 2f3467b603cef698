"""Cost: cached tokens are part of prompt tokens and priced by the model that served the request."""

import pytest

from reviewbot.inference.pricing import cost, usage_from_response
from reviewbot.settings.catalogue import DEFAULT_PRICES


def test_cost_matches_hand_computed_values() -> None:
    k25 = DEFAULT_PRICES["@cf/moonshotai/kimi-k2.5"]
    # 100k prompt of which 80k cached, 2k completion:
    # 20k * 0.60 + 80k * 0.10 + 2k * 3.00 = 12,000 + 8,000 + 6,000 = 26,000 micro-dollars
    assert cost(k25, 100_000, 80_000, 2_000) == pytest.approx(0.026)


def test_usage_is_priced_by_the_served_model_not_the_requested_one() -> None:
    body = {"model": "@cf/moonshotai/kimi-k2.6",
            "usage": {"prompt_tokens": 1_000_000, "completion_tokens": 0,
                      "prompt_tokens_details": {"cached_tokens": 500_000}}}
    usage = usage_from_response(body, DEFAULT_PRICES, "@cf/moonshotai/kimi-k2.5")
    assert usage.cost_usd == pytest.approx(0.5 * 0.95 + 0.5 * 0.16)
    assert usage.cache_ratio == pytest.approx(0.5)


def test_missing_usage_counts_zero() -> None:
    usage = usage_from_response({}, DEFAULT_PRICES, "unknown")
    assert usage.prompt_tokens == 0 and usage.cost_usd == 0
