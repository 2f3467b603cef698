"""`/metrics`: read the counters every process keeps in Redis, add live gauges, render the text format."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from arq.constants import default_queue_name
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.metrics_core import Metric as Family
from redis.exceptions import RedisError

from reviewbot.observe.metrics import CATALOG, INF, TOKENS, Metric
from reviewbot.state.shared_keys import RUNNING_KEY

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@dataclass(frozen=True)
class QueueDepth:
    ready: int  # waiting for a worker now
    deferred: int  # retries and polls of the provider's queue, due later
    running: int


async def queue_depth(redis: Any, now: float | None = None) -> QueueDepth:
    now = time.time() if now is None else now
    async with redis.pipeline(transaction=False) as pipe:
        pipe.zcount(default_queue_name, "-inf", int(now * 1000))
        pipe.zcount(default_queue_name, f"({int(now * 1000)}", "+inf")
        pipe.zremrangebyscore(RUNNING_KEY, "-inf", now)
        pipe.zcard(RUNNING_KEY)
        due, deferred, _, running = await pipe.execute()
    # arq leaves a job in its queue while it runs; those are counted as running, not ready.
    return QueueDepth(ready=max(0, int(due) - int(running)), deferred=int(deferred), running=int(running))


async def render(redis: Any) -> bytes:
    """The exposition text; with Redis down, only `reviewbot_redis_up 0` (a scrape that says why)."""
    try:
        async with redis.pipeline(transaction=False) as pipe:
            for metric in CATALOG:
                pipe.hgetall(metric.key)
            stored = await pipe.execute()
        depth = await queue_depth(redis)
    except (RedisError, OSError):
        return _generate([GaugeMetricFamily("reviewbot_redis_up", "Whether Redis answered this scrape.", 0)])
    families = [_family(metric, _decode(raw)) for metric, raw in zip(CATALOG, stored, strict=True)]
    families += _live(depth, _decode(stored[CATALOG.index(TOKENS)]))
    return _generate(families)


class _Snapshot:
    def __init__(self, families: list[Family]) -> None:
        self.families = families

    def collect(self) -> Iterator[Family]:
        yield from self.families


def _generate(families: list[Family]) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Snapshot(families))  # a duck-typed collector
    return generate_latest(registry)


def _decode(raw: dict[bytes, bytes]) -> dict[str, float]:
    return {k.decode(): float(v) for k, v in raw.items()}


def _family(metric: Metric, values: dict[str, float]) -> Family:
    if metric.kind == "histogram":
        return _histogram(metric, values)
    cls = CounterMetricFamily if metric.kind == "counter" else GaugeMetricFamily
    family = cls(metric.name, metric.help, labels=list(metric.labels))
    for labels, value in sorted(values.items()):
        family.add_metric(json.loads(labels), value)
    return family


def _histogram(metric: Metric, values: dict[str, float]) -> Family:
    family = HistogramMetricFamily(metric.name, metric.help, labels=list(metric.labels))
    series = sorted({at.split("\x1f")[0] for at in values})
    for labels in series:
        running, buckets = 0.0, []
        for bound in [repr(float(b)) for b in metric.buckets] + [INF]:
            running += values.get(f"{labels}\x1f{bound}", 0.0)
            buckets.append((bound, running))
        family.add_metric(json.loads(labels), buckets, values.get(f"{labels}\x1fsum", 0.0))
    return family


def _live(depth: QueueDepth, tokens: dict[str, float]) -> list[Family]:
    queue = GaugeMetricFamily("reviewbot_queue_depth", "Jobs in the queue: ready now, or deferred to later.",
                              labels=["state"])
    queue.add_metric(["ready"], depth.ready)
    queue.add_metric(["deferred"], depth.deferred)
    running = GaugeMetricFamily("reviewbot_jobs_running", "Jobs running in any worker.", depth.running)
    ratio = GaugeMetricFamily("reviewbot_cache_hit_ratio", "Cached prompt tokens over prompt tokens, all time.",
                              labels=["model"])
    for model, (prompt, cached) in sorted(_by_model(tokens).items()):
        ratio.add_metric([model], cached / prompt if prompt else 0.0)
    up = GaugeMetricFamily("reviewbot_redis_up", "Whether Redis answered this scrape.", 1)
    return [queue, running, ratio, up]


def _by_model(tokens: dict[str, float]) -> dict[str, tuple[float, float]]:
    sums: dict[str, list[float]] = {}
    for labels, value in tokens.items():
        model, _, kind = json.loads(labels)
        pair = sums.setdefault(model, [0.0, 0.0])
        if kind in ("prompt", "cached"):
            pair[kind == "cached"] += value
    return {model: (p, c) for model, (p, c) in sums.items()}

