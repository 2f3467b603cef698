"""One review's token allowance: requests in flight hold their estimates, so together they cannot pass the limit."""

from __future__ import annotations

import pytest

from reviewbot.errors import OverBudget
from reviewbot.inference.allowance import Allowance
from reviewbot.model import Usage
from reviewbot.settings.catalogue import Price


def test_requests_in_flight_together_stay_within_the_limit() -> None:
    allowance = Allowance(limit=10_000, completion_cap=1_000, price=Price(input=1.0, cached_input=0.1, output=4.0))
    hold = allowance.estimate(9_000)  # 3,000 prompt tokens at the starting 1 per 3 characters, + 1,000
    assert hold.tokens == 4_000
    first, second = allowance.take(hold, "pass 2"), allowance.take(hold, "pass 3")
    assert allowance.held == 8_000 and allowance.held_usd == pytest.approx((6_000 * 1.0 + 2_000 * 4.0) / 1e6)
    with pytest.raises(OverBudget, match=r"would pass the review's token budget .*10,000; 0 spent, 8,000 in flight"):
        allowance.take(hold, "verification")
    allowance.settle(first, Usage(prompt_tokens=2_500, completion_tokens=200))
    allowance.release(second)  # failed before it was billed
    assert (allowance.spent, allowance.held) == (2_700, 0)
    assert allowance.tokens_per_char == pytest.approx(1 / 3)  # 2,500 / 9,000 is below the start: not lowered


def test_a_measured_ratio_above_the_start_raises_later_estimates() -> None:
    allowance = Allowance(limit=1_000_000, completion_cap=0)
    hold = allowance.take(allowance.estimate(1_000), "review")
    allowance.settle(hold, Usage(prompt_tokens=900))  # CJK text: almost a token per character
    assert allowance.estimate(1_000).prompt == 900


def test_tool_turns_stop_while_the_answer_after_them_still_fits() -> None:
    allowance = Allowance(limit=100_000, completion_cap=1_000)
    small, large = allowance.estimate(30_000), allowance.estimate(120_000)  # 10,000 and 40,000 prompt tokens
    assert allowance.room_for_tools(small)  # 11,000 + 10,000 + 10,000 + 1,000 ≤ 75,000
    assert not allowance.room_for_tools(large)  # 41,000 + 40,000 + 10,000 + 1,000 > 75,000
