"""review_pull_request: load the PR through the port, run the review, publish; thin by design."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from arq import Retry
from redis.exceptions import RedisError

from reviewbot.app.bigdiff import load_diff
from reviewbot.app.port import GitHubPort, PullInfo
from reviewbot.errors import PermanentError, RetryableError, Waiting
from reviewbot.inference.memo import RedisMemo
from reviewbot.inference.tools import RepoTools
from reviewbot.inference.verify_request import StructuredVerifier
from reviewbot.observe.jobcontext import note_review
from reviewbot.queue import keys, retries
from reviewbot.queue.checkrun import CheckRun
from reviewbot.queue.gates import AUTOMATIC, automatic_skip, load_config, only_merged_base, superseded
from reviewbot.queue.post_review import already_posted, publish
from reviewbot.queue.request import ReviewRequest
from reviewbot.queue.sources import base_snapshot
from reviewbot.repos.index_store import SqliteIndex
from reviewbot.review.config import (
    context_options,
    precision,
    with_security,
)
from reviewbot.review.diff.parse import parse_diff
from reviewbot.review.engine import ReviewInput, affinity_id, run_review
from reviewbot.review.findings.security import SECURITY_TRIGGER
from reviewbot.review.prompt.calibration import prompt_chars
from reviewbot.review.prompt.sections import PromptInput
from reviewbot.stores import RedisStores, pr_layout_key

if TYPE_CHECKING:
    from reviewbot.queue.worker import Deps

log = logging.getLogger(__name__)


async def review_pull_request(ctx: dict[str, Any], installation_id: int, repo: str, number: int, head_sha: str,
                              trigger: str = "opened", full: bool = False, draft: bool = False,
                              before: str | None = None, run: str = "") -> dict[str, Any]:
    """Review one PR at one head SHA; superseded, paused and draft work ends before any GitHub call.

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
    check = CheckRun(port, redis, repo, head_sha, number, adopt=retry)
    # Ours ends before arq's job timeout, whose cancellation would leave the check run spinning.
    limit = asyncio.timeout(review_time(deps.settings.job_timeout))
    try:
        async with limit:
            return await _run(deps, port, redis, check, request, job_id, job)
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
        await check.update("queued", "Waiting for the model", f"The review is {exc}; it continues by itself.")
        await retries.retry_later(redis, job_id, exc)
        raise AssertionError("unreachable: retry_later always raises for Waiting") from exc
    except RetryableError as exc:
        log.warning("review failed, may be retried", extra={**job, "error": str(exc)})
        await retries.retry_later(redis, job_id, exc)  # raises Retry unless the budget is spent
        await check.fail(f"The review gave up after {retries.MAX_ATTEMPTS} attempts: {exc}")
        await RedisMemo(redis, job_id).clear()  # a later Re-run asks the model afresh
        return {"outcome": "failed", "reason": str(exc)}
    except PermanentError as exc:
        log.warning("review failed", extra={**job, "error": str(exc)})
        await check.fail(str(exc))
        await RedisMemo(redis, job_id).clear()
        return {"outcome": "failed", "reason": str(exc)}
    except Exception:
        await _crashed(check, job)
        raise
    finally:
        port.close()


async def _run(deps: Deps, port: GitHubPort, redis: Any, check: CheckRun, request: ReviewRequest, job_id: str,
               job: dict[str, Any]) -> dict[str, Any]:
    """`job` is the review's log fields."""
    installation_id, repo, number, head_sha = request.installation_id, request.repo, request.number, request.head_sha
    if await superseded(redis, repo, number, head_sha):
        log.info("review superseded before it started", extra=job)
        return {"outcome": "superseded"}
    if request.trigger in AUTOMATIC and await redis.exists(keys.paused_key(repo, number)):
        return {"outcome": "paused"}
    pull = await port.get_pull(repo, number)
    skip = await automatic_skip(port, repo, pull, request.trigger, request.draft)
    if skip:
        log.info("review not wanted", extra={**job, "reason": skip})
        return {"outcome": "skipped", "reason": skip}
    if await already_posted(port, repo, number, head_sha, request.run):
        # A re-run after a crash: the review is on the PR; finish the check run it may have left open.
        await check.complete_remembered()
        log.info("review already posted by an earlier run of this job", extra=job)
        return {"outcome": "already posted"}
    if spent := await deps.budget.exhausted(installation_id):
        await check.complete("neutral", "Daily budget spent", spent)
        return {"outcome": "budget", "reason": spent}
    await check.open("queued", "Review queued", "reviewbot will review this commit shortly.")
    if not await deps.slots.acquire(installation_id, job_id):
        raise retries.wait_for_slot()
    try:
        log.info("review started", extra=job)
        await check.update("in_progress", "Review in progress", "reviewbot is reading the changes.")
        full = request.full or bool(await redis.getdel(keys.full_key(job_id)))
        outcome = await _review(deps, port, redis, check, request, job_id, pull, full)
        outcome["full"] = full
    finally:
        await deps.slots.release(installation_id, job_id)
    await retries.forget(redis, job_id)
    await RedisMemo(redis, job_id).clear()
    log.info("review finished", extra={**job, "outcome": outcome["outcome"]})
    return outcome


async def _crashed(check: CheckRun, job: dict[str, Any]) -> None:
    """A bug of ours: say so on the PR instead of leaving the check spinning; the caller lets arq record it."""
    log.exception("review crashed", extra=job)
    await check.fail("an internal error in reviewbot (see the worker's log)")


def review_time(job_timeout: float) -> float:
    """What a review may take: a little less than arq's limit (10%, 1 to 30 s), leaving time to end its check run."""
    return max(job_timeout / 2, job_timeout - min(30.0, max(1.0, job_timeout / 10)))


async def _review(deps: Deps, port: GitHubPort, redis: Any, check: CheckRun, request: ReviewRequest, job_id: str,
                  pull: PullInfo, full: bool) -> dict[str, Any]:
    repo, number, head_sha = request.repo, request.number, request.head_sha
    if pull.state != "open" or pull.head_sha != head_sha:
        why = "a newer commit was pushed" if pull.state == "open" else f"the pull request is {pull.state}"
        await check.complete("skipped", "Review skipped", f"Skipped: {why}.")
        return {"outcome": "superseded"}
    before = request.before
    if request.trigger == "synchronize" and before and await only_merged_base(port, repo, head_sha, before,
                                                                             pull.base_sha):
        await check.complete("skipped", "Base branch merged in", "This push only merged the base branch into the "
                             f"pull request; the review of {before[:7]} still applies. Comment `review` to "
                             "the app to review again.")
        return {"outcome": "skipped", "reason": "update branch"}
    loaded = await load_config(port, repo, pull.base_ref)
    # `@app security-review` (its trigger, or an upgrade of an already queued review) → security mode
    security = request.trigger == SECURITY_TRIGGER or bool(await redis.get(keys.security_key(job_id)))
    config = with_security(loaded.config) if security else loaded.config
    diff_text, unseen = await load_diff(port, repo, number, pull.base_sha, pull.head_sha)
    diff = parse_diff(diff_text)
    # Context engine: the base tree from the repository cache, the PR's last layout, the calibrated estimate.
    snapshot, root = await base_snapshot(deps, port, repo, pull, diff)
    stores = RedisStores(redis)
    layout_key = pr_layout_key(repo, number)
    calibration = await stores.calibration(deps.settings.model)
    tools = RepoTools(root) if root is not None and deps.settings.max_tool_turns > 0 else None
    options = context_options(config, deps.settings.prompt_budget, [f.path for f in diff.files],
                              tools=tools is not None)
    prompt = PromptInput(title=pull.title, description=pull.body, diff=diff, base_files={}, snapshot=snapshot,
                         options=options, chars_per_token=calibration.chars_per_token,
                         index=SqliteIndex(deps.settings.data_dir / "index") if root is not None else None)
    review_input = ReviewInput(prompt=prompt, affinity=affinity_id("pr", request.installation_id, repo, number),
                               previous_layout=await stores.load_layout(layout_key), precision=precision(config))
    reviewer = deps.reviewer(job_id, tools)
    result = await run_review(review_input, reviewer, StructuredVerifier(reviewer))
    note_review(result.report)  # observe: files and findings for the usage ledger
    await deps.budget.record(request.installation_id, result.report.usage)
    await stores.save_layout(layout_key, result.plan.layout)
    if result.report.usage.requests == 1:  # one request: its prompt_tokens measure exactly what we estimated
        sent = prompt_chars(result.prompt.messages, tools.definitions() if tools is not None else None)
        await stores.observe(deps.settings.model, sent, result.report.usage.prompt_tokens)
    if await superseded(redis, repo, number, head_sha) and (await port.get_pull(repo, number)).head_sha != head_sha:
        await check.complete("cancelled", "Review cancelled", "A newer commit was pushed while this one was being "
                             "reviewed; the newer commit is reviewed instead.")
        return {"outcome": "superseded"}
    outcome = await publish(port, check, pull=pull, head_sha=head_sha, report=result.report, diff=diff,
                            config=config, run_id=request.run, full=full,
                            config_errors=tuple(loaded.errors), unseen=tuple(unseen))
    await redis.delete(keys.security_key(job_id))
    return {**outcome, "usage": result.report.usage.as_json()}
