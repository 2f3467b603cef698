"""Turn a decision into stored work: delivery dedup, the latest-SHA marker, idempotent job ids."""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

from arq.connections import ArqRedis

from reviewbot.app.identity import APP_SLUG_KEY
from reviewbot.observe.jobcontext import delivery_kwarg
from reviewbot.queue import keys
from reviewbot.queue.enqueue import enqueue_review
from reviewbot.queue.request import ReviewRequest
from reviewbot.settings import Settings
from reviewbot.webhooks.events import Closed, CommentCommand, Decision, Rerun
from reviewbot.webhooks.review_comments import ThreadReply

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    status: int
    body: dict[str, Any]


class Intake:
    """Everything the webhook writes to Redis; any Redis error propagates so the caller answers 503."""

    def __init__(self, pool: ArqRedis, settings: Settings) -> None:
        self.pool = pool
        self.settings = settings
        self._slug: str | None = settings.app_slug

    async def names(self) -> list[str]:
        """The names a comment may address: the App's slug (cached in Redis by the worker) and aliases."""
        if self._slug is None:
            raw = await self.pool.get(APP_SLUG_KEY)
            self._slug = raw.decode() if raw else None
        return [n for n in (self._slug, *self.settings.command_aliases) if n]

    async def first_delivery(self, guid: str) -> bool:
        """True the first time a delivery id is seen; GitHub's redeliveries keep the same id."""
        if not guid:
            return True
        return bool(await self.pool.set(keys.delivery_key(guid), "1", nx=True, ex=keys.DELIVERY_TTL))

    async def forget_delivery(self, guid: str) -> None:
        """Undo `first_delivery` when the work could not be stored, so a redelivery is accepted."""
        if guid:
            await self.pool.delete(keys.delivery_key(guid))

    async def store(self, decision: Decision, delivery: str = "") -> Outcome:
        """`delivery` names the request, so a crashed job re-run never posts twice but a new request does."""
        if isinstance(decision, ReviewRequest):  # its SHA becomes the PR's newest, in the same round trip
            return await self._review(dataclasses.replace(decision, run=delivery), latest=True)
        if isinstance(decision, Closed):
            await self.pool.set(keys.latest_key(decision.repo, decision.number), "closed", ex=keys.STATE_TTL)
            return Outcome(202, {"status": "cancelled", "reason": "pull request closed"})
        if isinstance(decision, Rerun):
            if not decision.numbers:
                return Outcome(202, {"status": "ignored", "reason": "no pull request for this check"})
            outcomes = [await self._review(ReviewRequest(decision.installation_id, decision.repo, n,
                                                         decision.head_sha, trigger="rerun", full=decision.full,
                                                         run=delivery))
                        for n in decision.numbers]
            return outcomes[0]
        if isinstance(decision, CommentCommand):
            job_id = keys.command_job_id(decision.repo, decision.comment_id)
            job = await self.pool.enqueue_job(
                keys.COMMAND_FUNCTION, decision.installation_id, decision.repo, decision.number,
                decision.comment_id, decision.author, decision.trusted, decision.command.verb,
                decision.command.name, _job_id=job_id, **delivery_kwarg())  # observe: delivery id on its logs
            return Outcome(202, {"status": "queued" if job else "already queued", "job_id": job_id})
        if isinstance(decision, ThreadReply):
            job_id = keys.conversation_job_id(decision.repo, decision.comment_id)
            job = await self.pool.enqueue_job(
                keys.CONVERSATION_FUNCTION, decision.installation_id, decision.repo, decision.number,
                decision.comment_id, decision.root_id, decision.author, decision.trusted, decision.mentioned,
                decision.dismissal, _job_id=job_id, **delivery_kwarg())
            return Outcome(202, {"status": "queued" if job else "already queued", "job_id": job_id})
        return Outcome(202, {"status": "ignored"})

    async def _review(self, request: ReviewRequest, latest: bool = False) -> Outcome:
        new = await enqueue_review(self.pool, request, latest=latest)
        return Outcome(202, {"status": "queued" if new else "already queued",
                             "job_id": keys.review_job_id(request.repo, request.number, request.head_sha)})
