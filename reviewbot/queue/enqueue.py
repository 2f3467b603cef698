"""Enqueue a review idempotently: shared by the webhook and by comment commands in the worker."""

from __future__ import annotations

import logging

from arq.connections import ArqRedis

from reviewbot.observe.context import delivery_kwarg
from reviewbot.queue import keys
from reviewbot.review.security import SECURITY_TRIGGER

log = logging.getLogger(__name__)


async def enqueue_review(pool: ArqRedis, installation_id: int, repo: str, number: int, head_sha: str, *,
                         trigger: str, full: bool = False, draft: bool = False, before: str | None = None,
                         run: str = "") -> bool:
    """True when a new job was queued; False when one for this SHA is already queued or running."""
    job_id = keys.review_job_id(repo, number, head_sha)
    job = await pool.enqueue_job(keys.REVIEW_FUNCTION, installation_id, repo, number, head_sha,
                                 trigger=trigger, full=full, draft=draft, before=before, run=run, _job_id=job_id,
                                 **delivery_kwarg())  # observe: the webhook's delivery id on the job's logs
    if job is None and full:
        await pool.set(keys.full_key(job_id), "1", ex=keys.STATE_TTL)  # upgrade the queued one to a full review
    if job is None and trigger == SECURITY_TRIGGER:  # and to a security review (issue 10)
        await pool.set(keys.security_key(job_id), "1", ex=keys.STATE_TTL)
    log.info("review enqueued", extra={"repo": repo, "pr": number, "sha": head_sha[:12], "trigger": trigger,
                                       "new": job is not None})
    return job is not None
