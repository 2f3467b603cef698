"""After a dismissal or a closed pull request: the repository's patterns found again from Redis (no GitHub call),
each one not proposed before queued as a job whose id is the repository and the pattern's hash."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from reviewbot.learn.patterns import Evidence, Pattern, from_dismissals, from_rates, from_reactions
from reviewbot.outcomes.outcome_store import OutcomeStore
from reviewbot.outcomes.rates import rates
from reviewbot.queue import functions
from reviewbot.queue.enqueue import store_job
from reviewbot.state import keys
from reviewbot.state.learnings_store import Learnings

log = logging.getLogger(__name__)


async def patterns_of(redis: Any, repo: str, ttl_days: float) -> list[Pattern]:
    """Every pattern in the repository's remembered dismissals and its findings' outcomes."""
    learnings = [s.learning for s in await Learnings(redis, ttl_days).of(repo)]
    records = await OutcomeStore(redis).records(repo)
    return [*from_dismissals(learnings), *from_rates(rates(records, "category"), records), *from_reactions(records)]


async def queue_proposals(redis: Any, installation_id: int, repo: str, ttl_days: float) -> list[str]:
    """Queue a proposal for each pattern not proposed before; returns the hashes queued. The job reads whether
    the repository wants proposals (`learn: propose`), so turning it on later finds the patterns still there."""
    queued = []
    for pattern in await patterns_of(redis, repo, ttl_days):
        if await redis.exists(keys.proposal_key(repo, pattern.hash)):
            continue
        stored = await store_job(redis, functions.LEARN_FUNCTION, (installation_id, repo, pattern_args(pattern)), {},
                                 keys.learn_job_id(repo, pattern.hash))
        if stored == "queued":
            queued.append(pattern.hash)
    if queued:
        log.info("rule proposals queued", extra={"repo": repo, "patterns": queued})
    return queued


def pattern_args(pattern: Pattern) -> dict[str, Any]:
    """The pattern as the job's JSON argument."""
    return dataclasses.asdict(pattern)


def pattern_from(args: dict[str, Any]) -> Pattern:
    evidence = tuple(Evidence(**e) for e in args.get("evidence") or ())
    return Pattern(**{**args, "people": tuple(args.get("people") or ()), "evidence": evidence})
