"""What observability costs: per-review recording, /metrics, the dashboard and `usage` over a big ledger.

Run from the repository root: `.venv/bin/python bench/observe_bench.py [records]` (default 50,000). It uses a
throwaway embedded Redis on a unix socket; the numbers go in docs/benchmarks.md (Observability).
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from redis.asyncio import Redis

from reviewbot.observe.charts import cache_chart, cost_chart
from reviewbot.observe.dashboard import load_view, templates
from reviewbot.observe.exposition import render
from reviewbot.observe.ledger import Entry, Ledger
from reviewbot.observe.metrics import (
    COST,
    JOBS,
    MODEL_LATENCY,
    MODEL_REQUESTS,
    REVIEW_DURATION,
    SAVED,
    TOKENS,
    WEBHOOKS,
    Batch,
)
from reviewbot.observe.totals import summarize
from reviewbot.queue.embedded import EmbeddedRedis
from reviewbot.settings import Settings


def review_batch(i: int) -> Batch:
    """What one finished review sends: the job counter, three model requests, the duration."""
    batch, inst, model = Batch(), str(1000 + i % 20), "@cf/moonshotai/kimi-k2.6"
    batch.inc(JOBS, function="review", outcome="reviewed")
    for _ in range(3):
        batch.inc(MODEL_REQUESTS, model=model, installation=inst, mode="sync")
        batch.observe(MODEL_LATENCY, 12.5, model=model)
        for kind in ("prompt", "cached", "completion", "reasoning"):
            batch.inc(TOKENS, 1000, model=model, installation=inst, kind=kind)
        batch.inc(COST, 0.01, model=model, installation=inst)
        batch.inc(SAVED, 0.002, model=model, installation=inst)
    batch.observe(REVIEW_DURATION, 95.0, outcome="reviewed")
    batch.inc(WEBHOOKS, event="pull_request", outcome="queued")
    return batch


def entry(i: int) -> Entry:
    return Entry(f"org{i % 40}/repo{i % 7}", i, f"{i:040x}", "reviewed" if i % 10 else "failed",
                 reason="" if i % 10 else "the model's answer was not valid review JSON", duration_s=90.0,
                 prompt_tokens=80_000, cached_tokens=50_000, completion_tokens=3_000, cost_usd=0.05, saved_usd=0.02,
                 model="@cf/moonshotai/kimi-k2.6")


async def timed(label: str, runs: int, make: object) -> None:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        await make()  # type: ignore[operator]
        samples.append(time.perf_counter() - started)
    print(f"{label}: median {statistics.median(samples) * 1000:.2f} ms over {runs} runs")


async def main(records: int, url: str) -> None:
    redis = Redis.from_url(url)
    settings = Settings.from_mapping({"REDIS_URL": url})
    ledger, now = Ledger(redis, 90), time.time()
    try:
        started = time.perf_counter()
        for i in range(records):
            at = now - 29 * 86_400 * (1 - i / records)
            await ledger.record(entry(i), now=at, stream_id=f"{int(at * 1000)}-{i}")
        spent = time.perf_counter() - started
        print(f"ledger append (one pipeline a record): {records / spent:,.0f} records/s, "
              f"{spent / records * 1e6:.0f} µs each")
        memory = await redis.memory_usage("reviewbot:ledger")
        print(f"ledger stream: {records:,} records in {memory / 2**20:.1f} MiB ({memory / records:.0f} B a record)")

        await timed("one finished review's metrics (one pipeline)", 200, lambda: review_batch(0).send(redis))
        for i in range(200):  # 20 installations' worth of series
            await review_batch(i).send(redis)
        text = await render(redis)
        lines = len(text.splitlines())
        print(f"/metrics body: {len(text):,} bytes, {lines:,} lines")
        await timed("/metrics render", 50, lambda: render(redis))

        env = templates(settings)

        async def dashboard() -> None:
            view = await load_view(redis, settings)
            env.get_template("dashboard.html").render(view=view, totals=view.totals, cost_svg=cost_chart(view.days),
                                                      cache_svg=cache_chart(view.days), model="m", signed_in=False)

        await timed(f"dashboard (load + render) over {records:,} records", 20, dashboard)

        started = time.perf_counter()
        read = [e async for e in ledger.entries(since=now - 7 * 86_400)]
        summary = summarize(read)
        spent = time.perf_counter() - started
        print(f"usage --since 7d: {len(read):,} records read and summed in {spent:.2f} s "
              f"({len(read) / spent:,.0f} records/s), total ${summary.total.cost_usd:,.2f}")
    finally:
        await redis.aclose()


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    data = Path(tempfile.mkdtemp(prefix="rb-bench-", dir="/tmp"))
    server = EmbeddedRedis(data)
    try:
        asyncio.run(main(count, server.start()))
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)
