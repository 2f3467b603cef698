"""review_pull_request: load the PR through the port, run the review, publish; thin by design."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from typing import TYPE_CHECKING, Any

from arq import Retry
from redis.exceptions import RedisError

from reviewbot.app.identity import known_slug
from reviewbot.app.port import GitHubPort, PullInfo
from reviewbot.errors import LeaseLost, ModelBusy, PermanentError, RetryableError, Waiting
from reviewbot.inference.budget import BudgetBusy, BudgetSpent, review_estimate
from reviewbot.inference.memo import RedisMemo
from reviewbot.inference.verify_request import StructuredVerifier
from reviewbot.jobs.outcomes.recording import record_review
from reviewbot.jobs.pr_review.checkrun import CheckRun
from reviewbot.jobs.pr_review.gates import AUTOMATIC, automatic_skip, config_digest, load_config
from reviewbot.jobs.pr_review.pipeline import ReviewPorts, review_head
from reviewbot.jobs.pr_review.post_review import already_posted
from reviewbot.observe.fencing import lease_lost
from reviewbot.observe.jobcontext import current
from reviewbot.queue import retries
from reviewbot.queue.request import SECURITY_TRIGGER, ReviewRequest
from reviewbot.review.config import LoadedConfig, RepoConfig
from reviewbot.review.engine import ReviewInput, ReviewResult, run_review
from reviewbot.review.findings.dismissals import Learning
from reviewbot.state import keys
from reviewbot.state.learnings_store import Learnings, from_config

if TYPE_CHECKING:
    from reviewbot.inference.structured import StructuredReviewer
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)
LAG_TRIES = 5  # tries (2 s apart) for GitHub's API to show the head a `synchronize` delivery announced
LAG_DEFER_S = 2.0


async def review_pull_request(ctx: dict[str, Any], installation_id: int, repo: str, number: int, head_sha: str,
                              trigger: str = "opened", full: bool = False, draft: bool = False,
                              before: str | None = None, run: str = "") -> dict[str, Any]:
    """Review one PR at one head SHA; paused work ends before any GitHub call, and work that is not for the PR's
    current head (as GitHub says), unwanted or already done ends before any check run or model request.

    `run` names the request (a delivery or comment id): a crashed job that runs again finds its own review
    already posted and does not post twice, while a new request for the same SHA reviews again."""
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    request = ReviewRequest(installation_id, repo, number, head_sha, trigger, full, draft, before, run)
    job_id = str(ctx.get("job_id") or keys.review_job_id(repo, number, head_sha))
    # arq runs it again after a crash or a wait for a slot: it may have opened its check run already.
    retry = int(ctx.get("job_try") or 1) > 1
    job = {"repo": repo, "pr": number, "sha": head_sha[:12], "trigger": trigger, "job_try": ctx.get("job_try", 1)}
    port = deps.installation_port(installation_id)
    check = CheckRun(port, redis, repo, head_sha, number, adopt=retry, fixes=deps.settings.fixes != "off")
    # Ours ends before arq's job timeout, whose cancellation would leave the check run spinning.
    limit = asyncio.timeout(review_time(deps.settings.job_timeout))
    if (scope := current()) is not None:  # every paid request is charged as it arrives, however the review ends
        scope.charge = functools.partial(deps.budget.charge, installation_id, repo, job_id)
    try:
        async with limit:
            return await _run(deps, port, redis, check, request, job_id, job, int(ctx.get("job_try") or 1))
    except Retry:
        raise
    except TimeoutError:
        if not limit.expired():
            await _crashed(check, job)
            raise
        log.warning("review stopped at its time limit", extra=job)
        await check.fail(f"the review took longer than REVIEWBOT_JOB_TIMEOUT ({deps.settings.job_timeout:.0f} s) "
                         "allows and was stopped; press Re-run to try again")
        return {"outcome": "failed", "reason": "time limit"}
    except RedisError as exc:
        # Nothing is lost: the job and its check run's id are in Redis's append-only file. arq runs the job
        # again once Redis answers (after the job's timeout when Redis is still down now); the check run waits.
        log.warning("Redis failed during the review; it will run again", extra={**job, "error": type(exc).__name__})
        raise Retry(defer=5.0) from exc
    except Waiting as exc:
        log.info("review waits", extra={**job, "reason": str(exc), "defer_s": exc.retry_after})
        waiting_for = "the daily budget" if isinstance(exc, BudgetBusy) else "the model"
        await check.update("queued", f"Waiting for {waiting_for}", f"The review is {exc}; it continues by itself.")
        await retries.retry_later(redis, job_id, exc, first_s=deps.settings.retry_delay)
        raise AssertionError("unreachable: retry_later always raises for Waiting") from exc
    except RetryableError as exc:
        log.warning("review failed, may be retried", extra={**job, "error": str(exc)})
        if isinstance(exc, ModelBusy):  # a model without an asynchronous queue: deferred, and the user told why
            await check.update("queued", "Waiting for the model", "The model provider is busy (out of capacity); "
                               "the review tries again by itself shortly.")
        # raises Retry unless the budget is spent
        await retries.retry_later(redis, job_id, exc, first_s=deps.settings.retry_delay)
        await check.fail(f"The review gave up after {retries.MAX_ATTEMPTS} attempts: {exc}")
        await RedisMemo(redis, job_id).clear()  # a later Re-run asks the model afresh
        return {"outcome": "failed", "reason": str(exc)}
    except PermanentError as exc:
        log.warning("review failed", extra={**job, "error": str(exc)})
        await check.fail(str(exc))
        await RedisMemo(redis, job_id).clear()
        return {"outcome": "failed", "reason": str(exc)}
    except LeaseLost:
        raise  # another worker runs this review now: the check run is its to finish
    except Exception:
        await _crashed(check, job)
        raise
    finally:
        port.close()
        with contextlib.suppress(RedisError):  # else the hold lapses by itself after the job's lease
            if not lease_lost():  # a lost lease's hold (same job id) is the new holder's
                await deps.budget.release(installation_id, repo, job_id)


async def _run(deps: Deps, port: GitHubPort, redis: Any, check: CheckRun, request: ReviewRequest, job_id: str,
               job: dict[str, Any], job_try: int) -> dict[str, Any]:
    """`job` is the review's log fields."""
    installation_id, repo, number, head_sha = request.installation_id, request.repo, request.number, request.head_sha
    if request.trigger in AUTOMATIC and await redis.exists(keys.paused_key(repo, number)):
        return {"outcome": "paused"}
    pull = await port.get_pull(repo, number)
    if stale := await _not_the_head(check, request, pull, job, job_try):
        return stale
    loaded = await load_config(port, repo, pull.base_ref, visibility=pull.visibility)
    skip = automatic_skip(loaded.config, pull, request.trigger, request.draft)
    if skip:
        log.info("review not wanted", extra={**job, "reason": skip})
        return {"outcome": "skipped", "reason": skip}
    reviewed = keys.reviewed_key(repo, number, head_sha, config_digest(loaded.config, deps.settings.model))
    # Only an explicit request (a command, Re-run, or an upgrade of this job by one) reviews a reviewed SHA again:
    # reopening, toggling draft or replaying a delivery under a new id costs nothing.
    explicit = request.trigger not in AUTOMATIC or await redis.exists(keys.full_key(job_id), keys.security_key(job_id))
    if not explicit and await redis.exists(reviewed):
        log.info("this commit was already reviewed under this configuration", extra=job)
        return {"outcome": "skipped", "reason": "already reviewed"}
    if await already_posted(port, repo, number, head_sha, request.run, deps.settings.marker_key()):
        # A re-run after a crash: the review is on the PR; finish the check run it may have left open.
        await check.complete_remembered()
        await redis.set(reviewed, "1", ex=keys.DELIVERY_TTL)
        log.info("review already posted by an earlier run of this job", extra=job)
        return {"outcome": "already posted"}
    await check.open("queued", "Review queued", "reviewbot will review this commit shortly.")
    usd, tokens = review_estimate(deps.settings)
    try:  # the review's estimated cost is held before it starts; each request grows the hold if it must
        await deps.budget.reserve(installation_id, repo, job_id, usd, tokens)
    except BudgetSpent as exc:
        await check.complete("neutral", "Daily budget spent", str(exc))
        return {"outcome": "budget", "reason": str(exc)}
    if not await deps.slots.acquire(installation_id, job_id):
        raise retries.wait_for_slot()
    try:
        log.info("review started", extra=job)
        await check.update("in_progress", "Review in progress", "reviewbot is reading the changes.")
        full = request.full or bool(await redis.getdel(keys.full_key(job_id)))
        outcome = await _review(deps, port, redis, check, request, job_id, pull, loaded, full)
        if outcome["outcome"] != "superseded":  # reviewed, or an "Update branch" whose earlier review stands
            await redis.set(reviewed, "1", ex=keys.DELIVERY_TTL)
        outcome["full"] = full
    finally:
        if not lease_lost():
            await deps.slots.release(installation_id, job_id)
    await retries.forget(redis, job_id)
    await RedisMemo(redis, job_id).clear()
    log.info("review finished", extra={**job, "outcome": outcome["outcome"]})
    return outcome


async def _not_the_head(check: CheckRun, request: ReviewRequest, pull: PullInfo, job: dict[str, Any],
                        job_try: int) -> dict[str, Any] | None:
    """None when the commit is still the open PR's head, as GitHub answers now; else why this job stands down.
    Only GitHub's answer counts, never the order deliveries arrived in: the head's own job reviews it."""
    if pull.state == "open" and pull.head_sha == request.head_sha:
        return None
    if pull.state == "open" and request.before == pull.head_sha and job_try < LAG_TRIES:
        # The push's own webhook arrived, but GitHub's API still answers with the previous head: ask again.
        log.info("GitHub does not show this push yet; asking again", extra=job)
        raise Retry(defer=LAG_DEFER_S)
    why = "a newer commit was pushed" if pull.state == "open" else f"the pull request is {pull.state}"
    # An earlier try (killed, or waiting for a slot) may have opened this commit's check run: end it.
    await check.complete_if_open("skipped", "Review skipped", f"Skipped: {why}.")
    log.info("review stands down: not the pull request's head", extra={**job, "reason": why})
    return {"outcome": "superseded", "reason": why}


async def _crashed(check: CheckRun, job: dict[str, Any]) -> None:
    """A bug of ours: say so on the PR instead of leaving the check spinning; the caller lets arq record it."""
    log.exception("review crashed", extra=job)
    await check.fail("an internal error in reviewbot (see the worker's log)")


async def _learnings(redis: Any, repo: str, config: RepoConfig, ttl_days: int) -> tuple[Learning, ...]:
    """Dismissals remembered from review threads (expired ones dropped), then those in the configuration file."""
    remembered = tuple(s.learning for s in await Learnings(redis, ttl_days).of(repo))
    return remembered + from_config(config.learnings)


def review_time(job_timeout: float) -> float:
    """What a review may take: a little less than arq's limit (10%, 1 to 30 s), leaving time to end its check run."""
    return max(job_timeout / 2, job_timeout - min(30.0, max(1.0, job_timeout / 10)))


async def _review(deps: Deps, port: GitHubPort, redis: Any, check: CheckRun, request: ReviewRequest, job_id: str,
                  pull: PullInfo, loaded: LoadedConfig, full: bool) -> dict[str, Any]:
    # `@app security-review` (its trigger, or an upgrade of an already queued review) → security mode
    security = request.trigger == SECURITY_TRIGGER or bool(await redis.get(keys.security_key(job_id)))

    async def gate(held_tokens: int, held_usd: float) -> None:
        await deps.budget.reserve(request.installation_id, request.repo, job_id, held_usd, held_tokens)

    async def learnings(config: RepoConfig) -> tuple[Learning, ...]:
        return await _learnings(redis, request.repo, config, deps.settings.learning_ttl_days)

    ports = ReviewPorts(settings=deps.settings, port=port, store=redis,
                        reviewer=lambda tools, images: deps.reviewer(job_id, tools, gate, images),
                        answer=answer_once, learnings=learnings,
                        app=await known_slug(deps.settings, redis) or "reviewbot",
                        installation_id=request.installation_id)
    reviewed = await review_head(ports, check, request, pull, loaded, security=security, full=full)
    if reviewed.outcome == "reviewed":
        await redis.delete(keys.security_key(job_id))
        await record_review(redis, request.installation_id, request.repo, request.number, posted=reviewed.posted,
                            fixed=reviewed.fixed, model=deps.settings.model, by=f"{ports.app}[bot]")
    return reviewed.as_json()


async def answer_once(review_input: ReviewInput, reviewer: StructuredReviewer) -> ReviewResult:
    """The worker asks once: a request the provider queues raises ModelQueued, and the job defers to poll it."""
    return await run_review(review_input, reviewer, StructuredVerifier(reviewer))
