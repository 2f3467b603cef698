"""Make docs/dashboard.png: a month of seeded reviews in a throwaway Redis, rendered by headless Chromium.

Run from the repository root: `.venv/bin/python docs/make_dashboard_screenshot.py` (needs Debian's chromium).
"""

from __future__ import annotations

import asyncio
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from redis.asyncio import Redis  # noqa: E402

from reviewbot.inference.pricing import DEFAULT_PRICES, cost  # noqa: E402
from reviewbot.observe.ledger import Entry, Ledger  # noqa: E402
from reviewbot.observe.metrics import RUNNING_KEY  # noqa: E402
from reviewbot.queue.embedded import EmbeddedRedis  # noqa: E402
from reviewbot.settings import Settings  # noqa: E402
from reviewbot.webhooks.server import create_app  # noqa: E402
from tests.browser import find_chromium, screenshot  # noqa: E402
from tests.fakes.server import ServedApp  # noqa: E402

MODEL = "@cf/moonshotai/kimi-k2.5"
SERVED = "@cf/moonshotai/kimi-k2.6"  # Workers AI answers K2.5 requests with K2.6
REPOS = ("acme/payments-api", "acme/web", "acme/infra", "umbrella/mobile")
TRIGGERS = ("opened", "synchronize", "synchronize", "synchronize", "comment", "rerun")
FAILURES = (
    "Workers AI refused the request: the account's daily free allowance is spent (3036). Upgrade to Workers Paid "
    "or wait until 00:00 UTC.",
    "the model's answer was not valid review JSON after a repair turn: findings.3.line: Input should be greater "
    "than or equal to 1",
    "GitHub answered 502 for GET diff acme/web#1187 (gave up after 5 attempts)",
)


def one_review(rng: random.Random, day: int, at: float) -> Entry:
    repo = rng.choice(REPOS)
    outcome = rng.choices(("reviewed", "superseded", "skipped", "failed"), (86, 8, 4, 2))[0]
    if outcome != "reviewed":
        reason = rng.choice(FAILURES) if outcome == "failed" else ""
        return Entry(repo, rng.randint(900, 1300), f"{rng.getrandbits(160):040x}", outcome, reason=reason,
                     trigger=rng.choice(TRIGGERS), duration_s=round(rng.uniform(0.1, 3), 2))
    prompt = rng.randint(30_000, 160_000)
    cached = int(prompt * min(0.9, rng.uniform(0.30, 0.55) + day * 0.012))  # re-reviews hit the cache more
    completion = rng.randint(1_200, 6_000)
    price = DEFAULT_PRICES[SERVED]
    findings = [rng.choices(range(5), (50, 25, 12, 8, 5))[0] for _ in range(4)]
    return Entry(repo, rng.randint(900, 1300), f"{rng.getrandbits(160):040x}", "reviewed",
                 trigger=rng.choice(TRIGGERS), installation=31337, duration_s=round(rng.uniform(25, 240), 1),
                 files_reviewed=rng.randint(1, 40), files_skipped=rng.choice((0, 0, 0, 2)),
                 comments=sum(findings[:3]), critical=findings[3] // 3, major=findings[0], minor=findings[1],
                 nit=findings[2], prompt_tokens=prompt, cached_tokens=cached, completion_tokens=completion,
                 cost_usd=cost(price, prompt, cached, completion),
                 saved_usd=cost(price, prompt, 0, completion) - cost(price, prompt, cached, completion),
                 requests=rng.randint(1, 4), model=SERVED)


async def seed(url: str, now: float) -> None:
    rng = random.Random(7)  # noqa: S311 - demo data, not secrets
    redis = Redis.from_url(url)
    try:
        ledger = Ledger(redis, 90)
        for day in range(30):
            weekday = time.gmtime(now - (29 - day) * 86_400).tm_wday
            count = rng.randint(2, 6) if weekday >= 5 else rng.randint(10, 26)
            start = now - (29 - day) * 86_400 - 86_000 if day < 29 else now - 40_000
            for at in sorted(start + rng.uniform(0, 39_000) for _ in range(count)):
                await ledger.record(one_review(rng, day, at), now=at, stream_id=f"{int(at * 1000)}-0")
        await redis.zadd("arq:queue", {f"reviewbot:review:demo-{i}": int(now * 1000) - 1_000 for i in range(5)})
        await redis.zadd(RUNNING_KEY, {f"reviewbot:review:demo-{i}": now + 600 for i in range(3)})
    finally:
        await redis.aclose()


def main() -> int:
    binary = find_chromium()
    if binary is None:
        print("needs Chromium: apt-get install chromium", file=sys.stderr)
        return 1
    data = Path(tempfile.mkdtemp(prefix="rb-shot-", dir="/tmp"))
    server = EmbeddedRedis(data)
    url = server.start()
    try:
        asyncio.run(seed(url, time.time()))
        settings = Settings.from_mapping({"REDIS_URL": url, "REVIEWBOT_MODEL": MODEL})
        with ServedApp(create_app(settings, url), lifespan="on") as served:
            out = ROOT / "docs" / "dashboard.png"
            screenshot(binary, f"{served.url}/dashboard", out, width=1280, height=1180)
            print(f"wrote {out.relative_to(ROOT)}")
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
