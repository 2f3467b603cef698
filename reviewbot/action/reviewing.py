"""One pull request reviewed inside an Actions job: the worker's review pipeline on a plain-token port, with
in-memory stand-ins where the service uses Redis and in-process polling where the worker defers."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from reviewbot.action.action_check import ActionCheck
from reviewbot.action.memory import MemoryRedis
from reviewbot.action.permissions import MissingPermission, explain, refused
from reviewbot.app.port import GitHubPort, PullInfo
from reviewbot.errors import ModelQueued, PermanentError, RetryableError
from reviewbot.inference.client import ModelClient
from reviewbot.inference.memo import MemoryMemo
from reviewbot.inference.polling import answer_polling
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.inference.tools import RepoTools
from reviewbot.jobs.pr_review.gates import AUTOMATIC, automatic_skip, load_config
from reviewbot.jobs.pr_review.pipeline import ReviewPorts, review_head
from reviewbot.jobs.pr_review.post_review import review_markers
from reviewbot.queue.request import SECURITY_TRIGGER, ReviewRequest
from reviewbot.review.config import LoadedConfig, RepoConfig
from reviewbot.review.findings.dismissals import Learning
from reviewbot.settings import Settings
from reviewbot.state.learnings_store import from_config

log = logging.getLogger(__name__)
INTERNAL = "an internal error in reviewbot (see the job's log)"


@dataclass(frozen=True)
class Outcome:
    outcome: str  # reviewed, skipped, superseded, failed; nothing (the event asks for nothing)
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
    loaded = await load_config(port, repo, pull.base_ref, visibility=pull.visibility)
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
        await _review(run, check, request, pull, LoadedConfig(config, loaded.errors, loaded.notes))
    except (PermanentError, RetryableError) as exc:
        if refused(exc) and not isinstance(exc, MissingPermission):  # the check run worked: the review was refused
            exc = explain(exc, "pull-requests", "post the review or its comments")
        await check.fail(str(exc))
        return Outcome("failed", str(exc), *(check.ended or (None, "", "")))
    except Exception:
        await check.fail(INTERNAL)
        raise
    if check.ended is None:
        return Outcome("failed", "the review ended without completing its check run")
    conclusion, title, summary = check.ended
    return Outcome("reviewed" if conclusion not in ("skipped", "cancelled") else "skipped", title, conclusion,
                   title, summary)


async def _review(run: Run, check: ActionCheck, request: ReviewRequest, pull: PullInfo, loaded: LoadedConfig) -> None:
    settings = run.settings

    def reviewer(tools: RepoTools | None, images: list[dict[str, Any]]) -> StructuredReviewer:
        return StructuredReviewer(run.client, memo=MemoryMemo(), tools=tools, max_turns=settings.max_tool_turns,
                                  token_budget=settings.review_token_budget, images=images)

    async def learnings(config: RepoConfig) -> tuple[Learning, ...]:
        return from_config(config.learnings)  # no memory between runs: only the configuration's

    ports = ReviewPorts(settings=settings, port=run.port, store=MemoryRedis(), reviewer=reviewer,
                        answer=answer_polling(_queued), learnings=learnings, app="reviewbot")
    await review_head(ports, check, request, pull, loaded, security=request.trigger == SECURITY_TRIGGER,
                      full=request.full)


def _queued(exc: ModelQueued) -> None:
    log.info("the model provider queued the review; polling", extra={"retry_after": exc.retry_after})


def _blocking(config: RepoConfig, severity: str | None) -> RepoConfig:
    return config if severity is None else config.model_copy(update={"blocking_severity": severity})
