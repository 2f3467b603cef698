"""`reviewbot learnings list|forget` and the dashboard's view of remembered dismissals, on a real Redis."""

from __future__ import annotations

import asyncio
import io
import json

from redis.asyncio import Redis

from reviewbot.cli.learnings import learnings_command
from reviewbot.cli.main import parser
from reviewbot.observe.dashboard import load_view
from reviewbot.review.findings.dismissals import Learning
from reviewbot.settings import Settings
from reviewbot.state.learnings_store import Learnings


async def _remember(url: str) -> str:
    redis = Redis.from_url(url)
    try:
        return await Learnings(redis).remember("acme/widgets", Learning(
            rule="total now divides by the item count", code_key="0123456789abcdef", path="app/calc.py",
            reason="intended", by="maintainer-mo", pr=7, title="total() now divides by the item count"))
    finally:
        await redis.aclose()


def test_list_shows_and_forget_removes_a_dismissal(redis_url: str) -> None:
    key = asyncio.run(_remember(redis_url))
    out = io.StringIO()
    assert learnings_command(redis_url, "list", None, fmt="json", out=out) == 0
    [row] = json.loads(out.getvalue())
    assert (row["repo"], row["key"], row["reason"], row["by"], row["pr"]) == ("acme/widgets", key, "intended",
                                                                            "maintainer-mo", 7)
    out = io.StringIO()
    assert learnings_command(redis_url, "forget", "acme/widgets", key, out=out) == 0
    assert "may be raised again" in out.getvalue()
    assert learnings_command(redis_url, "forget", "acme/widgets", key, out=io.StringIO()) == 1
    out = io.StringIO()
    learnings_command(redis_url, "list", "acme/widgets", out=out)
    assert out.getvalue().startswith("No dismissals remembered")


def test_the_cli_knows_the_family() -> None:
    args = parser().parse_args(["learnings", "forget", "acme/widgets", "abc"])
    assert (args.action, args.repo, args.key) == ("forget", "acme/widgets", "abc")


async def test_the_dashboard_view_lists_them(redis_url: str, settings: Settings) -> None:
    await _remember(redis_url)
    redis = Redis.from_url(redis_url)
    try:
        view = await load_view(redis, settings)
    finally:
        await redis.aclose()
    [shown] = view.learnings
    assert shown.learning.by == "maintainer-mo" and shown.title.startswith("total()")


async def test_a_learning_expires_after_its_days_and_is_dropped_when_read(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    try:
        store = Learnings(redis, ttl_days=180)
        learning = Learning(rule="old rule", code_key="00000000000000aa", path="a.py", by="mo", pr=3,
                            repository=False, title="Old")
        key = await store.remember("acme/widgets", learning, now=1_000_000.0)
        assert key == "00000000000000aa#pr3"  # a pull-request-only learning has its own field
        [live] = await store.of("acme/widgets", now=1_000_000.0 + 179 * 86_400)
        assert live.expires == 1_000_000.0 + 180 * 86_400 and not live.learning.repository
        assert await store.of("acme/widgets", now=1_000_000.0 + 181 * 86_400) == []
        assert await redis.hlen("reviewbot:learnings:acme/widgets") == 0  # dropped, not only hidden
    finally:
        await redis.aclose()
