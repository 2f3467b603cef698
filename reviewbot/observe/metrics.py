"""Prometheus metrics kept in Redis hashes, so every web and worker process on every host adds to one set."""

# Why not prometheus-client's multiprocess mode: it shares files in one PROMETHEUS_MULTIPROC_DIR, so it only
# covers processes on one host, while reviewbot's web and worker processes may run on any host that reaches
# Redis. Updates are HINCRBYFLOATs sent in one pipeline (a job sends one when a try ends); `/metrics` reads them
# back and renders them with prometheus-client (exposition.py).

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any, Literal

from redis.exceptions import RedisError

from reviewbot.state.shared_keys import RUNNING_KEY, metric_key

log = logging.getLogger(__name__)

INF = "+Inf"


@dataclass(frozen=True)
class Metric:
    name: str
    kind: Literal["counter", "histogram", "gauge"]
    help: str
    labels: tuple[str, ...]
    buckets: tuple[float, ...] = ()

    @property
    def key(self) -> str:
        return metric_key(self.name)


WEBHOOKS = Metric("reviewbot_webhooks", "counter", "Webhook deliveries by event and outcome.", ("event", "outcome"))
JOBS = Metric("reviewbot_jobs", "counter", "Job runs by function and outcome (each try of a retried job counts).",
              ("function", "outcome"))
REVIEW_DURATION = Metric("reviewbot_review_duration_seconds", "histogram",
                         "Reviews from their first try's start to their end, by outcome.", ("outcome",),
                         (1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600))
MODEL_LATENCY = Metric("reviewbot_model_request_duration_seconds", "histogram",
                       "Synchronous model requests, by the model that served them.", ("model",),
                       (0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600))
MODEL_REQUESTS = Metric("reviewbot_model_requests", "counter",
                        "Paid model requests; mode=async came through the provider's asynchronous queue.",
                        ("model", "installation", "mode"))
TOKENS = Metric("reviewbot_model_tokens", "counter", "Model tokens by kind (cached tokens are part of prompt).",
                ("model", "installation", "kind"))
COST = Metric("reviewbot_model_cost_usd", "counter", "What the model requests cost, in US dollars.",
              ("model", "installation"))
SAVED = Metric("reviewbot_cache_savings_usd", "counter",
               "What cached prompt tokens would have cost more at the uncached price, in US dollars.",
               ("model", "installation"))
RATE_LIMIT = Metric("reviewbot_github_rate_limit_remaining", "gauge",
                    "GitHub API requests left in the current window, as last seen by a job.", ("installation",))
AUDIT_CHUNKS = Metric("reviewbot_audit_chunks", "counter", "Audit chunks by outcome (audited, not audited).",
                      ("outcome",))
AUDIT_TOKENS = Metric("reviewbot_audit_tokens", "counter", "Model tokens spent by audits, by kind.", ("kind",))
AUDIT_COST = Metric("reviewbot_audit_cost_usd", "counter", "What audits cost, in US dollars.", ())
FINDINGS_POSTED = Metric("reviewbot_findings_posted", "counter",
                         "Findings posted as line comments, by category and severity.", ("category", "severity"))
OUTCOMES = Metric("reviewbot_finding_outcomes", "counter",
                  "Posted findings' outcomes as they are decided (fixed, dismissed, resolved, open_at_merge, "
                  "open_at_close), by category and severity.", ("outcome", "category", "severity"))
REACTIONS = Metric("reviewbot_finding_reactions", "counter",
                   "+1 and -1 reactions on posted findings, read when their pull request closes.",
                   ("reaction", "category", "severity"))
CATALOG = (WEBHOOKS, JOBS, REVIEW_DURATION, MODEL_LATENCY, MODEL_REQUESTS, TOKENS, COST, SAVED, RATE_LIMIT,
           AUDIT_CHUNKS, AUDIT_TOKENS, AUDIT_COST, FINDINGS_POSTED, OUTCOMES, REACTIONS)


def labels_field(metric: Metric, values: dict[str, str]) -> str:
    return json.dumps([str(values.get(name, ""))[:100] for name in metric.labels], separators=(",", ":"))


def bucket_of(metric: Metric, value: float) -> str:
    """The smallest bucket bound the value fits under; counts are stored per bucket, cumulated when read."""
    return next((repr(float(b)) for b in metric.buckets if value <= b), INF)


@dataclass
class Batch:
    """Updates collected during a job or request and sent in one pipeline."""

    ops: list[tuple[str, str, str, float]] = field(default_factory=list)  # (op, key, field, amount)

    def inc(self, metric: Metric, amount: float = 1.0, **labels: str) -> None:
        if amount:
            self.ops.append(("incr", metric.key, labels_field(metric, labels), float(amount)))

    def observe(self, metric: Metric, value: float, **labels: str) -> None:
        at = labels_field(metric, labels)
        self.ops += [("incr", metric.key, f"{at}\x1f{bucket_of(metric, value)}", 1.0),
                     ("incr", metric.key, f"{at}\x1fsum", float(value)),
                     ("incr", metric.key, f"{at}\x1fcount", 1.0)]

    def set(self, metric: Metric, value: float, **labels: str) -> None:
        self.ops.append(("set", metric.key, labels_field(metric, labels), float(value)))

    async def send(self, redis: Any) -> None:
        """Write every update; a Redis failure is logged, never raised: metrics must not fail the work."""
        if not self.ops:
            return
        pipe = redis.pipeline(transaction=False)
        for op, key, at, amount in self.ops:
            if op == "set":
                pipe.hset(key, at, amount)
            else:
                pipe.hincrbyfloat(key, at, amount)
        try:
            await pipe.execute()
        except (RedisError, OSError) as exc:
            log.warning("metrics not recorded: Redis unavailable", extra={"error": type(exc).__name__})
        self.ops.clear()


async def job_started(redis: Any, job_id: str, lease_s: float, now: float) -> None:
    try:
        await redis.zadd(RUNNING_KEY, {job_id: now + lease_s})
    except (RedisError, OSError) as exc:
        log.warning("running job not recorded: Redis unavailable", extra={"error": type(exc).__name__})


async def job_ended(redis: Any, job_id: str) -> None:
    try:
        await redis.zrem(RUNNING_KEY, job_id)
    except (RedisError, OSError) as exc:
        log.warning("running job not cleared: Redis unavailable", extra={"error": type(exc).__name__})
