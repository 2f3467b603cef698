"""review_pull_request: load the PR through the port, run the review, publish; thin by design."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arq import Retry
from redis.exceptions import RedisError

from reviewbot.app.bigdiff import load_diff
from reviewbot.app.port import GitHubPort, PullInfo
from reviewbot.app.repocache import DirSnapshot, RepoCache
from reviewbot.errors import PermanentError, RetryableError, Waiting
from reviewbot.inference.memo import RedisMemo
from reviewbot.inference.tools import RepoTools
from reviewbot.queue import keys, retries
from reviewbot.queue.checkrun import CheckRun
from reviewbot.queue.publisher import already_posted, publish
from reviewbot.review.calibration import prompt_chars
from reviewbot.review.config import CONFIG_PATH, LoadedConfig, context_options, parse_config, raw_mapping
from reviewbot.review.diff import ParsedDiff, parse_diff
from reviewbot.review.engine import ReviewInput, affinity_id, run_review
from reviewbot.review.snapshot import MemorySnapshot, Snapshot
from reviewbot.stores import RedisStores, pr_layout_key

if TYPE_CHECKING:
    from reviewbot.queue.worker import Deps

log = logging.getLogger(__name__)
AUTOMATIC = frozenset({"opened", "reopened", "synchronize", "ready_for_review"})
MAX_CONTEXT_FILES = 60
MAX_ARCHIVE_BYTES = 500_000_000  # compressed; a bigger repository is reviewed with the contents-API fallback


async def review_pull_request(ctx: dict[str, Any], installation_id: int, repo: str, number: int, head_sha: str,
                              trigger: str = "opened", full: bool = False, draft: bool = False,
                              before: str | None = None, run: str = "") -> dict[str, Any]:
    """Review one PR at one head SHA; superseded, paused and draft work ends before any GitHub call.

    `run` names the request (a delivery or comment id): a crashed job that runs again finds its own review
    already posted and does not post twice, while a new request for the same SHA reviews again."""
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    job_id = str(ctx.get("job_id") or keys.review_job_id(repo, number, head_sha))
    spec = Job(installation_id, repo, number, head_sha, trigger, before, run, job_id,
               retry=int(ctx.get("job_try") or 1) > 1)
    job = {"repo": repo, "pr": number, "sha": head_sha[:12], "trigger": trigger, "job_try": ctx.get("job_try", 1)}
    port = deps.installation_port(installation_id)
    check = CheckRun(port, redis, repo, head_sha, number, adopt=spec.retry)
    # Ours ends before arq's job timeout, whose cancellation would leave the check run spinning.
    limit = asyncio.timeout(review_time(deps.settings.job_timeout))
    try:
        async with limit:
            return await _run(deps, port, redis, check, spec, job, full, draft)
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


async def _run(deps: Deps, port: GitHubPort, redis: Any, check: CheckRun, spec: Job, job: dict[str, Any],
               full: bool, draft: bool) -> dict[str, Any]:
    installation_id, repo, number, head_sha, job_id = (spec.installation_id, spec.repo, spec.number, spec.head_sha,
                                                       spec.job_id)
    if await superseded(redis, repo, number, head_sha):
        log.info("review superseded before it started", extra=job)
        return {"outcome": "superseded"}
    if spec.trigger in AUTOMATIC and await redis.exists(keys.paused_key(repo, number)):
        return {"outcome": "paused"}
    pull = await port.get_pull(repo, number)
    skip = await _automatic_skip(port, repo, pull, spec.trigger, draft)
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
        outcome = await _review(deps, port, redis, check, spec, pull, full)
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


async def superseded(redis: Any, repo: str, number: int, head_sha: str) -> bool:
    """True when the webhook has since seen a newer head SHA for this PR, or saw it closed."""
    latest = await redis.get(keys.latest_key(repo, number))
    return latest is not None and latest.decode() != head_sha


async def _automatic_skip(port: GitHubPort, repo: str, pull: PullInfo, trigger: str, draft: bool) -> str | None:
    """Why an automatic trigger should not review, per the base branch's config; None to go ahead."""
    if trigger not in AUTOMATIC:
        return None
    config = (await load_config(port, repo, pull.base_ref)).config
    if not config.enabled:
        return "reviews are disabled in " + CONFIG_PATH
    if (draft or pull.draft) and not config.auto_review.drafts:
        return "draft pull request"
    if trigger == "synchronize" and not config.auto_review.on_push:
        return "reviews on push are off in " + CONFIG_PATH
    if trigger in ("opened", "reopened", "ready_for_review") and not config.auto_review.on_open:
        return "reviews on open are off in " + CONFIG_PATH
    if pull.author.lower() in {a.lower() for a in config.authors}:
        return f"pull requests by {pull.author} are not reviewed automatically"
    if skip := sorted(set(pull.labels) & set(config.labels)):
        return f"labelled {', '.join(skip)}"
    return None


async def load_config(port: GitHubPort, repo: str, base_ref: str) -> LoadedConfig:
    """The base branch's config over the owner's org-wide defaults (the `.github` repository's file):
    a pull request can never change how it is reviewed."""
    owner = repo.split("/", 1)[0]
    try:
        org_text = await port.get_file(f"{owner}/.github", CONFIG_PATH, "")
    except PermanentError:  # not installed there, or no such repository: no org defaults
        org_text = None
    return parse_config(await port.get_file(repo, CONFIG_PATH, base_ref), defaults=raw_mapping(org_text))


@dataclass(frozen=True)
class Job:
    """One review request, as the job's arguments describe it."""

    installation_id: int
    repo: str
    number: int
    head_sha: str
    trigger: str
    before: str | None
    run: str
    job_id: str
    retry: bool = False  # arq runs it again (a crash, a wait for a slot): it may have posted already


async def _review(deps: Deps, port: GitHubPort, redis: Any, check: CheckRun, job: Job, pull: PullInfo,
                  full: bool) -> dict[str, Any]:
    repo, number, head_sha = job.repo, job.number, job.head_sha
    if pull.state != "open" or pull.head_sha != head_sha:
        why = "a newer commit was pushed" if pull.state == "open" else f"the pull request is {pull.state}"
        await check.complete("skipped", "Review skipped", f"Skipped: {why}.")
        return {"outcome": "superseded"}
    if job.trigger == "synchronize" and job.before and await _only_merged_base(port, repo, head_sha, job.before,
                                                                               pull.base_sha):
        await check.complete("skipped", "Base branch merged in", "This push only merged the base branch into the "
                             f"pull request; the review of {job.before[:7]} still applies. Comment `review` to "
                             "the app to review again.")
        return {"outcome": "skipped", "reason": "update branch"}
    if job.retry and await already_posted(port, repo, number, head_sha, job.run):  # before paying the model again
        await check.complete("neutral", "Review already posted", "This commit's review was already posted.")
        return {"outcome": "already posted"}
    loaded = await load_config(port, repo, pull.base_ref)
    diff_text, unseen = await load_diff(port, repo, number, pull.base_sha, pull.head_sha)
    diff = parse_diff(diff_text)
    # Context engine: the base tree from the repository cache, the PR's last layout, the calibrated estimate.
    snapshot, root = await _base_snapshot(deps, port, repo, pull, diff)
    stores = RedisStores(redis)
    layout_key = pr_layout_key(repo, number)
    calibration = await stores.calibration(deps.settings.model)
    tools = RepoTools(root) if root is not None and deps.settings.max_tool_turns > 0 else None
    options = context_options(loaded.config, deps.settings.prompt_budget, [f.path for f in diff.files],
                              tools=tools is not None)
    review_input = ReviewInput(title=pull.title, description=pull.body, diff=diff, base_files={},
                               affinity=affinity_id("pr", job.installation_id, repo, number), snapshot=snapshot,
                               options=options, previous_layout=await stores.load_layout(layout_key),
                               chars_per_token=calibration.chars_per_token)
    result = await run_review(review_input, deps.reviewer(job.job_id, tools))
    await deps.budget.record(job.installation_id, result.report.usage)
    await stores.save_layout(layout_key, result.plan.layout)
    if result.report.usage.requests == 1:  # one request: its prompt_tokens measure exactly what we estimated
        sent = prompt_chars(result.prompt.messages, tools.definitions() if tools is not None else None)
        await stores.observe(deps.settings.model, sent, result.report.usage.prompt_tokens)
    if await superseded(redis, repo, number, head_sha) and (await port.get_pull(repo, number)).head_sha != head_sha:
        await check.complete("cancelled", "Review cancelled", "A newer commit was pushed while this one was being "
                             "reviewed; the newer commit is reviewed instead.")
        return {"outcome": "superseded"}
    outcome = await publish(port, check, pull=pull, head_sha=head_sha, report=result.report, diff=diff,
                            config=loaded.config, run_id=job.run, full=full,
                            config_errors=tuple(loaded.errors), unseen=tuple(unseen))
    return {**outcome, "usage": result.report.usage.as_json()}


async def _only_merged_base(port: GitHubPort, repo: str, head_sha: str, before: str, base_sha: str) -> bool:
    """An "Update branch" push: a merge commit whose parents are the previous head and the base branch."""
    parents = await port.commit_parents(repo, head_sha)
    return len(parents) == 2 and parents[0] == before and parents[1] == base_sha


async def _base_snapshot(deps: Deps, port: GitHubPort, repo: str, pull: PullInfo,
                         diff: ParsedDiff) -> tuple[Snapshot, Path | None]:
    """The base tree from the repository cache (one tarball per base commit, reused by every re-review) and
    its directory for the tools; without it (archive refused or too big), the changed files through the
    contents API and no tools."""
    cache = RepoCache(deps.settings.data_dir / "repos", deps.settings.repo_cache_mb * 1_000_000)

    async def download(dest: Path) -> None:
        await port.download_tarball(repo, pull.base_sha, dest, MAX_ARCHIVE_BYTES)

    try:
        root = await cache.checkout(repo, pull.base_sha, download)
    except (PermanentError, OSError) as exc:  # OSError: the data dir is full or not writable
        log.warning("repository archive unavailable, using the contents API", extra={"repo": repo, "error": str(exc)})
        return MemorySnapshot(await _base_files(port, repo, pull, diff)), None
    return DirSnapshot(root), root


async def _base_files(port: GitHubPort, repo: str, pull: PullInfo, diff: ParsedDiff) -> dict[str, str]:
    """Base versions of the changed files: stable across pushes, so the prompt prefix stays cacheable."""
    wanted = [f for f in diff.files if f.status != "added" and not f.binary and f.old_path][:MAX_CONTEXT_FILES]
    limit = asyncio.Semaphore(8)

    async def one(path: str) -> tuple[str, str | None]:
        async with limit:
            return path, await port.get_file(repo, path, pull.base_sha)

    results = await asyncio.gather(*(one(f.old_path) for f in wanted if f.old_path))
    return {path: text for path, text in results if text is not None}
