"""Store a job idempotently, with its delivery's dedup, in one atomic step (reviews and comment commands).

One Lua script does what arq's `enqueue_job` does in three round trips (WATCH, EXISTS, MULTI/EXEC) plus the
delivery dedup and the `full review` upgrade: a delivery is marked seen in the same step that stores its job, so
no crash can leave it "seen" without work (GitHub's redelivery would then be answered "duplicate" and lost), and
under a burst of deliveries the webhook's cost is one round trip to Redis.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from arq.connections import ArqRedis
from arq.constants import job_key_prefix, result_key_prefix
from arq.jobs import serialize_job
from arq.utils import timestamp_ms

from reviewbot.observe.jobcontext import delivery_kwarg
from reviewbot.queue import functions
from reviewbot.queue.request import SECURITY_TRIGGER, ReviewRequest
from reviewbot.state import keys

log = logging.getLogger(__name__)
Stored = Literal["queued", "already queued", "duplicate"]

# KEYS: job, result, queue, full marker, delivery.
# ARGV: job bytes, expiry ms, score, job id, full ("1"), state TTL s, delivery TTL s, dedup ("1").
ENQUEUE = """
if ARGV[8] == '1' and not redis.call('SET', KEYS[5], '1', 'NX', 'EX', ARGV[7]) then return -1 end
if redis.call('EXISTS', KEYS[1], KEYS[2]) > 0 then
  if ARGV[5] == '1' then redis.call('SET', KEYS[4], '1', 'EX', ARGV[6]) end
  return 0
end
redis.call('PSETEX', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[4])
return 1
"""
ANSWERS: dict[int, Stored] = {1: "queued", 0: "already queued", -1: "duplicate"}


async def store_job(pool: ArqRedis, function: str, args: tuple[Any, ...], kwargs: dict[str, Any], job_id: str, *,
                    delivery: str = "", full: bool = False, defer_s: float = 0.0) -> Stored:
    """Queue `function(*args, **kwargs)` under `job_id` unless that job is queued or running; with `delivery`
    (GitHub's delivery id), a delivery already stored is a duplicate and stores nothing. `defer_s`: the job runs
    that many seconds from now (as arq's `_defer_by`), and its key lives that much longer."""
    now = timestamp_ms()
    defer_ms = max(0, round(defer_s * 1000))
    job = serialize_job(function, args, {**kwargs, **delivery_kwarg()}, None, now,  # the delivery id on its logs
                        serializer=functions.serialize)
    redis: Any = pool  # redis-py's stubs want every script argument as str; bytes and ints are sent as-is
    answer = await redis.eval(ENQUEUE, 5, job_key_prefix + job_id, result_key_prefix + job_id,
                              pool.default_queue_name, keys.full_key(job_id), keys.delivery_key(delivery), job,
                              pool.expires_extra_ms + defer_ms, now + defer_ms, job_id, "1" if full else "0",
                              keys.STATE_TTL, keys.DELIVERY_TTL, "1" if delivery else "0")
    return ANSWERS[int(answer)]


async def enqueue_review(pool: ArqRedis, request: ReviewRequest, *, delivery: str = "") -> Stored:
    """`queued` when a new job was stored; `already queued` when one for this SHA is queued or running (a `full`
    request then upgrades it); `duplicate` when `delivery` was stored before."""
    repo, number, head_sha = request.repo, request.number, request.head_sha
    job_id = keys.review_job_id(repo, number, head_sha)
    stored = await store_job(pool, functions.REVIEW_FUNCTION, request.job_args(), request.job_kwargs(), job_id,
                             delivery=delivery, full=request.full)
    if stored == "already queued" and request.trigger == SECURITY_TRIGGER:  # upgrades the review already queued
        await pool.set(keys.security_key(job_id), "1", ex=keys.STATE_TTL)
    log.debug("review enqueued", extra={"repo": repo, "pr": number, "sha": head_sha[:12], "trigger": request.trigger,
                                        "stored": stored})
    return stored
