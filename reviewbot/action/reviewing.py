"""One pull request reviewed inside an Actions job: the review job's steps (gates, prompt, engine, publishing,
check run) on a plain-token port, with in-memory stand-ins where the service uses Redis."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from reviewbot.action.action_check import ActionCheck
from reviewbot.action.memory import MemoryRedis
from reviewbot.action.permissions import MissingPermission, explain, refused
from reviewbot.app.port import GitHubPort, PullInfo
from reviewbot.errors import ModelQueued, PermanentError, RetryableError
from reviewbot.inference.client import ModelClient
from reviewbot.inference.memo import MemoryMemo
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.inference.verify_request import StructuredVerifier
from reviewbot.jobs.pr_review.gates import AUTOMATIC, automatic_skip, load_config, only_merged_base
from reviewbot.jobs.pr_review.post_review import publish, review_markers
from reviewbot.jobs.pr_review.pr_prompt import pr_prompt
from reviewbot.jobs.pr_review.screenshots import screenshots
from reviewbot.queue.request import SECURITY_TRIGGER, ReviewRequest
from reviewbot.review.config import LoadedConfig, RepoConfig, with_security
from reviewbot.review.engine import ReviewInput, ReviewResult, run_review
from reviewbot.settings import Settings
from reviewbot.state.learnings_store import from_config

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    outcome: str  # reviewed, skipped, superseded, failed
    reason: str = ""
    conclusion: str | None = None  # the check run's, when one was completed
    title: str = ""
    summary: str = ""


@dataclass(frozen=True)
class Run:
    """What one review in this job needs: the settings, the port and model client, and the run's name."""

    settings: Settings
    port: GitHubPort
    client: ModelClient
    run_id: str
    blocking_severity: str | None = None  # the action's input, over the repository's configuration


async def review_in_action(run: Run, request: ReviewRequest) -> Outcome:
    port, repo, number = run.port, request.repo, request.number
    pull = await port.get_pull(repo, number)
    if pull.state != "open" or pull.head_sha != request.head_sha:
        why = "a newer commit was pushed" if pull.state == "open" else f"the pull request is {pull.state}"
        return Outcome("superseded", why)
    loaded = await load_config(port, repo, pull.base_ref)
    config = _blocking(loaded.config, run.blocking_severity)
    if skip := automatic_skip(config, pull, request.trigger, request.draft):
        return Outcome("skipped", skip)
    key = run.settings.marker_key()
    # Instead of the service's Redis record: the signed markers of reviews already on the pull request.
    if request.trigger in AUTOMATIC and any(m.get("sha") == pull.head_sha for m in
                                            review_markers(await port.list_reviews(repo, number), key)):
        return Outcome("skipped", f"commit {pull.head_sha[:7]} was already reviewed")
    check = ActionCheck(port, repo, pull.head_sha, number)
    await check.open("in_progress", "Review in progress", "reviewbot is reading the changes.")
    try:
        await _review(run, check, request, pull, LoadedConfig(config, loaded.errors), key)
    except (PermanentError, RetryableError) as exc:
        if refused(exc) and not isinstance(exc, MissingPermission):  # the check run worked: the review was refused
            exc = explain(exc, "pull-requests", "post the review or its comments")
        await check.fail(str(exc))
        return Outcome("failed", str(exc), *(check.ended or (None, "", "")))
    except Exception:
        await check.fail("an internal error in reviewbot (see the job's log)")
        raise
    if check.ended is None:
        return Outcome("failed", "the review ended without completing its check run")
    conclusion, title, summary = check.ended
    return Outcome("reviewed" if conclusion not in ("skipped", "cancelled") else "skipped", title, conclusion,
                   title, summary)


async def _review(run: Run, check: ActionCheck, request: ReviewRequest, pull: PullInfo, loaded: LoadedConfig,
                  key: bytes) -> None:
    port, repo, head_sha = run.port, request.repo, pull.head_sha
    if request.trigger == "synchronize" and request.before and await only_merged_base(port, repo, head_sha,
                                                                                      request.before, pull.base_sha):
        await check.complete("skipped", "Base branch merged in", "This push only merged the base branch into the "
                             f"pull request; the review of {request.before[:7]} still applies. Comment "
                             "`@reviewbot review` to review again.")
        return
    security = request.trigger == SECURITY_TRIGGER
    config = with_security(loaded.config) if security else loaded.config
    images, notes = await screenshots(port, run.settings, repo, pull)
    built = await pr_prompt(run.settings, port, MemoryRedis(), 0, repo, pull, config, tuple(notes))
    reviewer = StructuredReviewer(run.client, memo=MemoryMemo(), tools=built.tools,
                                  max_turns=run.settings.max_tool_turns,
                                  token_budget=run.settings.review_token_budget, images=images)
    result = await _answered(built.review_input, reviewer)
    if (await port.get_pull(repo, pull.number)).head_sha != head_sha:
        await check.complete("cancelled", "Review cancelled", "A newer commit was pushed while this one was being "
                             "reviewed; the newer commit is reviewed instead.")
        return
    await publish(port, check, pull=pull, head_sha=head_sha, report=result.report, diff=built.diff, config=config,
                  run_id=run.run_id, full=request.full, key=key, config_errors=tuple(loaded.errors),
                  unseen=built.unseen, learnings=from_config(config.learnings))


async def _answered(inp: ReviewInput, reviewer: StructuredReviewer) -> ReviewResult:
    """The review, waiting in-process when the provider queues it (a job cannot be re-enqueued here)."""
    while True:
        attempt = reviewer.fresh()  # the replayed answers of the last attempt count again
        try:
            return await run_review(inp, attempt, StructuredVerifier(attempt))
        except ModelQueued as exc:
            log.info("the model provider queued the review; polling", extra={"retry_after": exc.retry_after})
            await asyncio.sleep(exc.retry_after or 10.0)


def _blocking(config: RepoConfig, severity: str | None) -> RepoConfig:
    return config if severity is None else config.model_copy(update={"blocking_severity": severity})
