"""review_pull_request: load the PR through the port, run the review, publish; thin by design."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arq import Retry

from reviewbot.app.port import GitHubPort, PullInfo
from reviewbot.app.repocache import DirSnapshot, RepoCache
from reviewbot.errors import PermanentError, RetryableError
from reviewbot.queue import keys
from reviewbot.review.calibration import Calibration
from reviewbot.review.diff import ParsedDiff, parse_diff
from reviewbot.review.engine import ReviewInput, affinity_id, run_review
from reviewbot.review.options import read_options
from reviewbot.review.publish import check_conclusion, check_output, review_payload
from reviewbot.review.snapshot import MemorySnapshot, Snapshot
from reviewbot.stores import RedisLike, RedisStores, pr_layout_key

if TYPE_CHECKING:
    from reviewbot.queue.worker import Deps

log = logging.getLogger(__name__)
CHECK_NAME = "reviewbot"
MAX_TRIES = 5
MAX_CONTEXT_FILES = 60
MAX_ARCHIVE_BYTES = 500_000_000  # compressed; a bigger repository is reviewed with the contents-API fallback


async def review_pull_request(ctx: dict[str, Any], installation_id: int, repo: str, number: int,
                              head_sha: str) -> dict[str, Any]:
    """Review one PR at one head SHA; transient failures come back later through arq's Retry."""
    deps: Deps = ctx["deps"]
    job = {"repo": repo, "pr": number, "sha": head_sha[:12], "job_try": ctx.get("job_try", 1)}
    log.info("review started", extra=job)
    port = deps.port(await deps.tokens.get(installation_id))
    check_id: int | None = None
    try:
        check_id = await _open_check_run(ctx, port, repo, head_sha)
        outcome = await _review(deps, port, installation_id, repo, number, head_sha, check_id, ctx.get("redis"))
        log.info("review finished", extra={**job, "outcome": outcome["outcome"]})
        return outcome
    except RetryableError as exc:
        tries = int(ctx.get("job_try", 1))
        if tries < MAX_TRIES:
            defer = exc.retry_after or min(300.0, 5.0 * 2 ** tries)
            log.warning("review will be retried", extra={**job, "error": str(exc), "defer_s": defer})
            raise Retry(defer=defer) from exc
        await _fail(port, repo, check_id, f"The review gave up after {tries} attempts: {exc}")
        return {"outcome": "failed", "reason": str(exc)}
    except PermanentError as exc:
        log.warning("review failed", extra={**job, "error": str(exc)})
        await _fail(port, repo, check_id, str(exc))
        return {"outcome": "failed", "reason": str(exc)}
    except Exception:
        # A bug of ours: say so on the PR instead of leaving the check spinning, then let arq record it.
        log.exception("review crashed", extra=job)
        await _fail(port, repo, check_id, "an internal error in reviewbot (see the worker's log)")
        raise
    finally:
        port.close()


async def _review(deps: Deps, port: GitHubPort, installation_id: int, repo: str, number: int, head_sha: str,
                  check_id: int, redis: RedisLike | None = None) -> dict[str, Any]:
    pull = await port.get_pull(repo, number)
    if pull.head_sha != head_sha or pull.state != "open":
        why = "a newer commit was pushed" if pull.state == "open" else f"the pull request is {pull.state}"
        await port.update_check_run(repo, check_id, _completed("skipped", "Review skipped", f"Skipped: {why}."))
        return {"outcome": "superseded"}
    diff = parse_diff(await port.get_diff(repo, number))
    # Context engine: the base tree from the repository cache, the PR's last layout, the calibrated estimate.
    snapshot = await _base_snapshot(deps, port, repo, pull, diff)
    stores = RedisStores(redis) if redis is not None else None
    layout_key = pr_layout_key(repo, number)
    calibration = await stores.calibration(deps.settings.model) if stores else Calibration()
    options, warnings = read_options(snapshot, deps.settings.prompt_budget)
    previous = await stores.load_layout(layout_key) if stores else None
    review_input = ReviewInput(title=pull.title, description=pull.body, diff=diff, base_files={},
                               affinity=affinity_id("pr", installation_id, repo, number), snapshot=snapshot,
                               options=options, previous_layout=previous,
                               chars_per_token=calibration.chars_per_token, notes=warnings)
    result = await run_review(review_input, deps.reviewer)
    review_id = await port.create_review(repo, number, review_payload(result.report, head_sha))
    conclusion = check_conclusion(result.report)
    await port.update_check_run(repo, check_id, {**_completed(conclusion, *check_output(result.report))})
    usage = result.report.usage
    if stores is not None:
        await stores.save_layout(layout_key, result.plan.layout)
        if usage.requests == 1:  # one request: its prompt_tokens measure exactly the prompt we estimated
            await stores.observe(deps.settings.model, result.prompt.chars, usage.prompt_tokens)
    return {"outcome": "reviewed", "review_id": review_id, "comments": len(result.report.placement.inline),
            "usage": usage.as_json()}


async def _base_snapshot(deps: Deps, port: GitHubPort, repo: str, pull: PullInfo, diff: ParsedDiff) -> Snapshot:
    """The base tree from the repository cache (one tarball per base commit, reused by every re-review);
    without it (archive refused or too big), the changed files through the contents API."""
    cache = RepoCache(deps.settings.data_dir / "repos", deps.settings.repo_cache_mb * 1_000_000)

    async def download(dest: Path) -> None:
        await port.download_tarball(repo, pull.base_sha, dest, MAX_ARCHIVE_BYTES)

    try:
        return DirSnapshot(await cache.checkout(repo, pull.base_sha, download))
    except PermanentError as exc:
        log.warning("repository archive unavailable, using the contents API", extra={"repo": repo, "error": str(exc)})
        return MemorySnapshot(await _base_files(port, repo, pull, diff))


async def _base_files(port: GitHubPort, repo: str, pull: PullInfo, diff: ParsedDiff) -> dict[str, str]:
    """Base versions of the changed files: stable across pushes, so the prompt prefix stays cacheable."""
    wanted = [f for f in diff.files if f.status != "added" and not f.binary and f.old_path][:MAX_CONTEXT_FILES]
    limit = asyncio.Semaphore(8)

    async def one(path: str) -> tuple[str, str | None]:
        async with limit:
            return path, await port.get_file(repo, path, pull.base_sha)

    results = await asyncio.gather(*(one(f.old_path) for f in wanted if f.old_path))
    return {path: text for path, text in results if text is not None}


async def _open_check_run(ctx: dict[str, Any], port: GitHubPort, repo: str, head_sha: str) -> int:
    """Create the check run in_progress, or reuse the one an earlier try of this job created."""
    redis = ctx.get("redis")
    key = keys.check_run_key(repo, head_sha)
    if redis is not None and (existing := await redis.get(key)):
        check_id = int(existing)
        await port.update_check_run(repo, check_id, {"status": "in_progress"})
        return check_id
    check_id = await port.create_check_run(repo, {
        "name": CHECK_NAME, "head_sha": head_sha, "status": "in_progress", "started_at": _now(),
        "output": {"title": "Review in progress", "summary": "reviewbot is reading the changes."}})
    if redis is not None:
        await redis.set(key, str(check_id), ex=86_400)
    return check_id


async def _fail(port: GitHubPort, repo: str, check_id: int | None, reason: str) -> None:
    """End the check run visibly: never `success` for a review that did not happen."""
    if check_id is None:
        return
    summary = f"reviewbot could not review this pull request.\n\n**Reason:** {reason}"
    try:
        await port.update_check_run(repo, check_id, _completed("neutral", "Review failed", summary))
    except (RetryableError, PermanentError) as exc:
        log.error("could not mark the check run failed", extra={"repo": repo, "error": str(exc)})


def _completed(conclusion: str, title: str, summary: str) -> dict[str, Any]:
    return {"status": "completed", "conclusion": conclusion, "completed_at": _now(),
            "output": {"title": title, "summary": summary}}


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
