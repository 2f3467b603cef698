"""Turn a decision into stored work: delivery dedup and idempotent job ids, stored in one atomic step."""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

from arq.connections import ArqRedis

from reviewbot.queue import functions
from reviewbot.queue.enqueue import Stored, enqueue_review, store_job
from reviewbot.queue.request import ALL, AlertChange, FixArgs, ReviewRequest
from reviewbot.settings import Settings
from reviewbot.state import keys
from reviewbot.state.shared_keys import APP_SLUG_KEY
from reviewbot.webhooks.events import Closed, CommentCommand, Decision, FixButton, Rerun, SuiteCompleted
from reviewbot.webhooks.pushes import DefaultBranchPush
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

    async def store(self, decision: Decision, delivery: str = "") -> Outcome:
        """Store the work and mark `delivery` seen in one atomic step: a redelivery of a stored delivery is a
        "duplicate" (200), one whose work was never stored is accepted. `delivery` also names the request, so a
        crashed job re-run never posts twice but a new request does."""
        if isinstance(decision, ReviewRequest):
            return await self._review(dataclasses.replace(decision, run=delivery), delivery)
        if isinstance(decision, Closed):
            # Queued reviews need nothing: every job asks GitHub for the PR's state first and stops there. The
            # findings' outcomes are read by a job (GitHub calls), one per pull request and head.
            job_id = keys.outcomes_job_id(decision.repo, decision.number, decision.head_sha)
            stored = await store_job(self.pool, functions.OUTCOMES_FUNCTION,
                                     (decision.installation_id, decision.repo, decision.number, decision.head_sha,
                                      decision.merged), {}, job_id, delivery=delivery)
            return _outcome(stored, job_id, delivery)
        if isinstance(decision, Rerun):
            if not decision.numbers and decision.suite_id is not None:
                # A fork's pull request: GitHub names none, but our check runs in the suite carry its number.
                # Reading them is a GitHub call, so the worker does it.
                job_id = keys.suite_job_id(decision.repo, decision.suite_id)
                stored = await store_job(self.pool, functions.SUITE_FUNCTION,
                                         (decision.installation_id, decision.repo, decision.head_sha,
                                          decision.suite_id), {}, job_id, delivery=delivery)
                return _outcome(stored, job_id, delivery)
            if not decision.numbers:
                return Outcome(202, {"status": "ignored", "reason": "no pull request for this check"})
            outcomes = [await self._review(ReviewRequest(decision.installation_id, decision.repo, n,
                                                         decision.head_sha, trigger="rerun", full=decision.full,
                                                         run=delivery),
                                           delivery if i == 0 or not delivery else f"{delivery}#{n}")
                        for i, n in enumerate(decision.numbers)]
            return next((o for o in outcomes if o.status != 200), outcomes[0])
        if isinstance(decision, FixButton):
            return await self._fix(decision, delivery)
        if isinstance(decision, SuiteCompleted):
            return await self._suite_completed(decision, delivery)
        if isinstance(decision, CommentCommand):
            job_id = keys.command_job_id(decision.repo, decision.comment_id)
            stored = await store_job(
                self.pool, functions.COMMAND_FUNCTION,
                (decision.installation_id, decision.repo, decision.number, decision.comment_id, decision.author,
                 decision.trusted, decision.command.verb, decision.command.name),
                {"args": list(decision.command.args), "pull": decision.pull}
                if decision.command.verb in ("audit", "fix") else {}, job_id,
                delivery=delivery)
            return _outcome(stored, job_id, delivery)
        if isinstance(decision, DefaultBranchPush):
            # Whether the repository wants audits after pushes is in its config: a GitHub read, so the worker
            # decides, once per debounce window (the job id is the branch's: later pushes store nothing).
            job_id = keys.push_audit_job_id(decision.repo, decision.branch)
            stored = await store_job(self.pool, functions.PUSH_AUDIT_FUNCTION,
                                     (decision.installation_id, decision.repo, decision.branch), {}, job_id,
                                     delivery=delivery, defer_s=self.settings.audit_push_delay)
            return _outcome(stored, job_id, delivery)
        if isinstance(decision, AlertChange):
            # Who dismissed it and what the code was are GitHub reads: the worker's.
            job_id = keys.alert_job_id(decision.repo, decision.number, delivery)
            args = (decision.installation_id, decision.repo, dataclasses.asdict(decision))
            stored = await store_job(self.pool, functions.ALERT_FUNCTION, args, {}, job_id, delivery=delivery)
            return _outcome(stored, job_id, delivery)
        if isinstance(decision, ThreadReply):
            job_id = keys.conversation_job_id(decision.repo, decision.comment_id)
            stored = await store_job(
                self.pool, functions.CONVERSATION_FUNCTION,
                (decision.installation_id, decision.repo, decision.number, decision.comment_id, decision.root_id,
                 decision.author, decision.trusted, decision.mentioned, decision.command, decision.reason),
                {}, job_id,
                delivery=delivery)
            return _outcome(stored, job_id, delivery)
        return Outcome(202, {"status": "ignored"})

    async def _fix(self, button: FixButton, delivery: str) -> Outcome:
        """One fix job per pull request the check run names, on its head: a second click stores nothing."""
        if not button.numbers:
            return Outcome(202, {"status": "ignored", "reason": "no pull request for this check"})
        outcomes = []
        for i, number in enumerate(button.numbers):
            args = FixArgs(button.installation_id, button.repo, number, button.head_sha, ALL, button.sender, "button")
            stored = await store_job(self.pool, functions.FIX_FUNCTION, args.job_args(), {}, args.job_id,
                                     delivery=delivery if i == 0 or not delivery else f"{delivery}#{number}")
            outcomes.append(_outcome(stored, args.job_id, delivery))
        return next((o for o in outcomes if o.status != 200), outcomes[0])

    async def _suite_completed(self, suite: SuiteCompleted, delivery: str) -> Outcome:
        """Only a fix commit's suites (one Redis read): its CI result is read and told by a job, once per suite."""
        if not await self.pool.exists(keys.fix_ci_key(suite.repo, suite.head_sha)):
            return Outcome(202, {"status": "ignored", "reason": "not a fix commit"})
        job_id = keys.fix_ci_job_id(suite.repo, suite.head_sha, suite.suite_id)
        stored = await store_job(self.pool, functions.FIX_CI_FUNCTION,
                                 (suite.installation_id, suite.repo, suite.head_sha), {}, job_id, delivery=delivery)
        return _outcome(stored, job_id, delivery)

    async def _review(self, request: ReviewRequest, delivery: str) -> Outcome:
        job_id = keys.review_job_id(request.repo, request.number, request.head_sha)
        return _outcome(await enqueue_review(self.pool, request, delivery=delivery), job_id, delivery)


def _outcome(stored: Stored, job_id: str, delivery: str) -> Outcome:
    if stored == "duplicate":
        return Outcome(200, {"status": "duplicate", "delivery": delivery})
    return Outcome(202, {"status": stored, "job_id": job_id})
