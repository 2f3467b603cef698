"""review_pull_request: load the PR through the port, run the review, publish; thin by design."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from arq import Retry

from reviewbot.app.port import GitHubPort, PullInfo
from reviewbot.errors import PermanentError, RetryableError, Waiting
from reviewbot.inference.memo import RedisMemo
from reviewbot.observe.context import note_review
from reviewbot.queue import keys, retries
from reviewbot.queue.checkrun import CheckRun
from reviewbot.review.config import CONFIG_PATH, RepoConfig, parse_config
from reviewbot.review.diff import ParsedDiff, parse_diff
from reviewbot.review.engine import ReviewInput, affinity_id, run_review
from reviewbot.review.publish import check_conclusion, check_output, review_payload

if TYPE_CHECKING:
    from reviewbot.queue.worker import Deps

log = logging.getLogger(__name__)
AUTOMATIC = frozenset({"opened", "reopened", "synchronize", "ready_for_review"})
MAX_CONTEXT_FILES = 60


async def review_pull_request(ctx: dict[str, Any], installation_id: int, repo: str, number: int, head_sha: str,
                              trigger: str = "opened", full: bool = False, draft: bool = False,
                              before: str | None = None) -> dict[str, Any]:
    """Review one PR at one head SHA; superseded, paused and draft work ends before any GitHub call."""
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    job_id = str(ctx.get("job_id") or keys.review_job_id(repo, number, head_sha))
    job = {"repo": repo, "pr": number, "sha": head_sha[:12], "trigger": trigger, "job_try": ctx.get("job_try", 1)}
    if await superseded(redis, repo, number, head_sha):
        log.info("review superseded before it started", extra=job)
        return {"outcome": "superseded"}
    if trigger in AUTOMATIC and await redis.exists(keys.paused_key(repo, number)):
        return {"outcome": "paused"}
    port = deps.port(await deps.tokens.get(installation_id))
    check = CheckRun(port, redis, repo, head_sha, number)
    try:
        pull = await port.get_pull(repo, number)
        skip = await _automatic_skip(port, repo, pull, trigger, draft)
        if skip:
            log.info("review not wanted", extra={**job, "reason": skip})
            return {"outcome": "skipped", "reason": skip}
        if spent := await deps.budget.exhausted(installation_id):
            await check.complete("neutral", "Daily budget spent", spent)
            return {"outcome": "budget", "reason": spent}
        await check.open("queued", "Review queued", "reviewbot will review this commit shortly.")
        if not await deps.slots.acquire(installation_id, job_id):
            raise retries.wait_for_slot()
        try:
            log.info("review started", extra=job)
            await check.update("in_progress", "Review in progress", "reviewbot is reading the changes.")
            full = full or bool(await redis.getdel(keys.full_key(job_id)))
            outcome = await _review(deps, port, redis, check, installation_id, pull, head_sha, trigger, before,
                                    job_id)
            outcome["full"] = full
        finally:
            await deps.slots.release(installation_id, job_id)
        await retries.forget(redis, job_id)
        await RedisMemo(redis, job_id).clear()
        log.info("review finished", extra={**job, "outcome": outcome["outcome"]})
        return outcome
    except Retry:
        raise
    except Waiting as exc:
        log.info("review waits", extra={**job, "reason": str(exc), "defer_s": exc.retry_after})
        await check.update("queued", "Waiting for the model", f"The review is {exc}; it continues by itself.")
        await retries.retry_later(redis, job_id, exc)
        raise AssertionError("unreachable: retry_later always raises for Waiting") from exc
    except RetryableError as exc:
        log.warning("review failed, may be retried", extra={**job, "error": str(exc)})
        await retries.retry_later(redis, job_id, exc)  # raises Retry unless the budget is spent
        await check.fail(f"The review gave up after {retries.MAX_ATTEMPTS} attempts: {exc}")
        return {"outcome": "failed", "reason": str(exc)}
    except PermanentError as exc:
        log.warning("review failed", extra={**job, "error": str(exc)})
        await check.fail(str(exc))
        await RedisMemo(redis, job_id).clear()
        return {"outcome": "failed", "reason": str(exc)}
    except Exception:
        # A bug of ours: say so on the PR instead of leaving the check spinning, then let arq record it.
        log.exception("review crashed", extra=job)
        await check.fail("an internal error in reviewbot (see the worker's log)")
        raise
    finally:
        port.close()


async def superseded(redis: Any, repo: str, number: int, head_sha: str) -> bool:
    """True when the webhook has since seen a newer head SHA for this PR, or saw it closed."""
    latest = await redis.get(keys.latest_key(repo, number))
    return latest is not None and latest.decode() != head_sha


async def _automatic_skip(port: GitHubPort, repo: str, pull: PullInfo, trigger: str, draft: bool) -> str | None:
    """Why an automatic trigger should not review, per the base branch's config; None to go ahead."""
    if trigger not in AUTOMATIC:
        return None
    config = await load_config(port, repo, pull.base_ref)
    if not config.enabled:
        return "reviews are disabled in " + CONFIG_PATH
    if (draft or pull.draft) and not config.auto_review.drafts:
        return "draft pull request"
    if trigger == "synchronize" and not config.auto_review.on_push:
        return "reviews on push are off in " + CONFIG_PATH
    if trigger in ("opened", "reopened", "ready_for_review") and not config.auto_review.on_open:
        return "reviews on open are off in " + CONFIG_PATH
    return None


async def load_config(port: GitHubPort, repo: str, base_ref: str) -> RepoConfig:
    """The base branch's config: a pull request can never change how it is reviewed."""
    return parse_config(await port.get_file(repo, CONFIG_PATH, base_ref)).config


async def _review(deps: Deps, port: GitHubPort, redis: Any, check: CheckRun, installation_id: int, pull: PullInfo,
                  head_sha: str, trigger: str, before: str | None, job_id: str) -> dict[str, Any]:
    repo, number = check.repo, pull.number
    if pull.state != "open" or pull.head_sha != head_sha:
        why = "a newer commit was pushed" if pull.state == "open" else f"the pull request is {pull.state}"
        await check.complete("skipped", "Review skipped", f"Skipped: {why}.")
        return {"outcome": "superseded"}
    if trigger == "synchronize" and before and await _only_merged_base(port, repo, head_sha, before, pull.base_sha):
        await check.complete("skipped", "Base branch merged in", "This push only merged the base branch into the "
                             f"pull request; the review of {before[:7]} still applies. Comment `review` to the "
                             "app to review again.")
        return {"outcome": "skipped", "reason": "update branch"}
    diff = parse_diff(await port.get_diff(repo, number))
    base_files = await _base_files(port, repo, pull, diff)
    review_input = ReviewInput(title=pull.title, description=pull.body, diff=diff, base_files=base_files,
                               affinity=affinity_id("pr", installation_id, repo, number))
    result = await run_review(review_input, deps.reviewer(job_id))
    note_review(result.report)  # observe: files and findings for the usage ledger
    if await superseded(redis, repo, number, head_sha) and (await port.get_pull(repo, number)).head_sha != head_sha:
        await check.complete("cancelled", "Review cancelled", "A newer commit was pushed while this one was being "
                             "reviewed; the newer commit is reviewed instead.")
        return {"outcome": "superseded"}
    await deps.budget.record(installation_id, result.report.usage)
    review_id = await port.create_review(repo, number, review_payload(result.report, head_sha))
    await check.complete(check_conclusion(result.report), *check_output(result.report))
    return {"outcome": "reviewed", "review_id": review_id, "comments": len(result.report.placement.inline),
            "usage": result.report.usage.as_json()}


async def _only_merged_base(port: GitHubPort, repo: str, head_sha: str, before: str, base_sha: str) -> bool:
    """An "Update branch" push: a merge commit whose parents are the previous head and the base branch."""
    parents = await port.commit_parents(repo, head_sha)
    return len(parents) == 2 and parents[0] == before and parents[1] == base_sha


async def _base_files(port: GitHubPort, repo: str, pull: PullInfo, diff: ParsedDiff) -> dict[str, str]:
    """Base versions of the changed files: stable across pushes, so the prompt prefix stays cacheable."""
    wanted = [f for f in diff.files if f.status != "added" and not f.binary and f.old_path][:MAX_CONTEXT_FILES]
    limit = asyncio.Semaphore(8)

    async def one(path: str) -> tuple[str, str | None]:
        async with limit:
            return path, await port.get_file(repo, path, pull.base_sha)

    results = await asyncio.gather(*(one(f.old_path) for f in wanted if f.old_path))
    return {path: text for path, text in results if text is not None}
