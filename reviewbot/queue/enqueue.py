"""Enqueue a review idempotently: shared by the webhook and by comment commands in the worker.

One Lua script does what arq's `enqueue_job` does in three round trips (WATCH, EXISTS, MULTI/EXEC) plus the
newest-SHA marker and the `full review` upgrade, atomically: under a burst of deliveries the webhook's cost is
one round trip to Redis instead of four (see the README's load figures).
"""

from __future__ import annotations

import logging
from typing import Any

from arq.connections import ArqRedis
from arq.constants import job_key_prefix, result_key_prefix
from arq.jobs import serialize_job
from arq.utils import timestamp_ms

from reviewbot.observe.jobcontext import delivery_kwarg
from reviewbot.queue import keys
from reviewbot.queue.request import ReviewRequest
from reviewbot.review.findings.security import SECURITY_TRIGGER

log = logging.getLogger(__name__)

# KEYS: job, result, queue, full marker, latest SHA.
# ARGV: job bytes, expiry ms, score, job id, full ("1"), state TTL s, head SHA, set latest ("1").
ENQUEUE = """
if ARGV[8] == '1' then redis.call('SET', KEYS[5], ARGV[7], 'EX', ARGV[6]) end
if redis.call('EXISTS', KEYS[1], KEYS[2]) > 0 then
  if ARGV[5] == '1' then redis.call('SET', KEYS[4], '1', 'EX', ARGV[6]) end
  return 0
end
redis.call('PSETEX', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[4])
return 1
"""


async def enqueue_review(pool: ArqRedis, request: ReviewRequest, *, latest: bool = False) -> bool:
    """True when a new job was queued; False when one for this SHA is already queued or running (a `full`
    request then upgrades it). With `latest`, the SHA also becomes the PR's newest, which supersedes older jobs."""
    repo, number, head_sha, full = request.repo, request.number, request.head_sha, request.full
    job_id = keys.review_job_id(repo, number, head_sha)
    now = timestamp_ms()
    job = serialize_job(keys.REVIEW_FUNCTION, request.job_args(),
                        {**request.job_kwargs(), **delivery_kwarg()}, None, now,  # the delivery id on its logs
                        serializer=keys.serialize)
    redis: Any = pool  # redis-py's stubs want every script argument as str; bytes and ints are sent as-is
    new = await redis.eval(ENQUEUE, 5, job_key_prefix + job_id, result_key_prefix + job_id, pool.default_queue_name,
                          keys.full_key(job_id), keys.latest_key(repo, number), job, pool.expires_extra_ms, now,
                          job_id, "1" if full else "0", keys.STATE_TTL, head_sha, "1" if latest else "0")
    if not new and request.trigger == SECURITY_TRIGGER:  # `security-review` upgrades the review already queued
        await pool.set(keys.security_key(job_id), "1", ex=keys.STATE_TTL)
    log.debug("review enqueued", extra={"repo": repo, "pr": number, "sha": head_sha[:12], "trigger": request.trigger,
                                        "new": bool(new)})
    return bool(new)
