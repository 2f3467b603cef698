"""The quota a process believes in: GitHub's own count, never raised by an older answer read late."""

from __future__ import annotations

from reviewbot.app.limits import RateLimits


def headers(remaining: int, reset: int) -> dict[str, str]:
    return {"X-RateLimit-Remaining": str(remaining), "X-RateLimit-Reset": str(reset), "X-RateLimit-Limit": "5000"}


def test_answers_read_out_of_order_keep_the_lowest_count_of_their_window() -> None:
    limits = RateLimits()
    limits.observe("installation:1", headers(4965, 1000))
    limits.observe("installation:1", headers(4968, 1000))  # an earlier request's answer, read after
    quota = limits.quota("installation:1")
    assert quota is not None and (quota.remaining, quota.limit) == (4965, 5000)


def test_a_new_window_starts_a_new_count() -> None:
    limits = RateLimits()
    limits.observe("installation:1", headers(12, 1000))
    limits.observe("installation:1", headers(4999, 4600))
    quota = limits.quota("installation:1")
    assert quota is not None and (quota.remaining, quota.reset_at) == (4999, 4600)
