"""One pull request reviewed inside an Actions job: the worker's review pipeline on a plain-token port, with
in-memory stand-ins where the service uses Redis and in-process polling where the worker defers."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from reviewbot.action.action_check import ActionCheck
from reviewbot.action.memory import MemoryRedis
from reviewbot.action.outputs import check_run_url, review_url
from reviewbot.action.permissions import MissingPermission, explain, refused
from reviewbot.app.port import GitHubPort, PullInfo
from reviewbot.errors import ModelPermanent, ModelQueued, PermanentError, RetryableError
from reviewbot.inference.client import ModelClient
from reviewbot.inference.memo import MemoryMemo
from reviewbot.inference.polling import answer_polling
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.inference.tools import RepoTools
from reviewbot.jobs.pr_review.gates import AUTOMATIC, automatic_skip, load_config
from reviewbot.jobs.pr_review.pipeline import Reviewed, ReviewPorts, review_head
from reviewbot.jobs.pr_review.post_review import review_markers
from reviewbot.queue.request import SECURITY_TRIGGER, ReviewRequest
from reviewbot.review.config import LoadedConfig, RepoConfig
from reviewbot.review.engine import ReviewInput, ReviewResult
from reviewbot.review.findings.dismissals import Learning
from reviewbot.review.findings.schema import SEVERITY_RANK
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
    findings: dict[str, int] = field(default_factory=dict)  # the review's findings by severity
    review_url: str = ""
    check_run_url: str = ""
    cost_usd: float | None = None  # what the model was paid, when it was asked


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
    answers: list[ReviewResult] = []
    try:
        reviewed = await _review(run, check, request, pull, LoadedConfig(config, loaded.errors, loaded.notes),
                                 answers)
    except (PermanentError, RetryableError) as exc:
        if refused(exc) and not isinstance(exc, MissingPermission):  # the check run worked: the review was refused
            exc = explain(exc, "pull-requests", "post the review or its comments")
        await check.fail(str(exc))
        paid = exc.usage.cost_usd if isinstance(exc, ModelPermanent) else None  # a failed request is billed too
        conclusion, title, summary = check.ended or (None, "", "")
        return Outcome("failed", str(exc), conclusion, title, summary,
                       check_run_url=check_run_url(pull.html_url, check.id),
                       cost_usd=answers[-1].report.usage.cost_usd if answers else paid)
    except Exception:
        await check.fail(INTERNAL)
        raise
    if check.ended is None:
        return Outcome("failed", "the review ended without completing its check run")
    conclusion, title, summary = check.ended
    return Outcome("reviewed" if conclusion not in ("skipped", "cancelled") else "skipped", title, conclusion,
                   title, summary, findings=_by_severity(answers, config),
                   review_url=review_url(pull.html_url, reviewed.review_id),
                   check_run_url=check_run_url(pull.html_url, check.id),
                   cost_usd=answers[-1].report.usage.cost_usd if answers else None)


async def _review(run: Run, check: ActionCheck, request: ReviewRequest, pull: PullInfo, loaded: LoadedConfig,
                  answers: list[ReviewResult]) -> Reviewed:
    """The pipeline; `answers` receives the model's answer, for the step's outputs (findings and cost)."""
    settings = run.settings
    polling = answer_polling(_queued)

    async def answer(review_input: ReviewInput, reviewer: StructuredReviewer) -> ReviewResult:
        answers.append(await polling(review_input, reviewer))
        return answers[-1]

    def reviewer(tools: RepoTools | None, images: list[dict[str, Any]]) -> StructuredReviewer:
        return StructuredReviewer(run.client, memo=MemoryMemo(), tools=tools, max_turns=settings.max_tool_turns,
                                  token_budget=settings.review_token_budget, images=images)

    async def learnings(config: RepoConfig) -> tuple[Learning, ...]:
        return from_config(config.learnings)  # no memory between runs: only the configuration's

    ports = ReviewPorts(settings=settings, port=run.port, store=MemoryRedis(), reviewer=reviewer,
                        answer=answer, learnings=learnings, app="reviewbot")
    return await review_head(ports, check, request, pull, loaded, security=request.trigger == SECURITY_TRIGGER,
                      full=request.full)


def _queued(exc: ModelQueued) -> None:
    log.info("the model provider queued the review; polling", extra={"retry_after": exc.retry_after})


def _by_severity(answers: list[ReviewResult], config: RepoConfig) -> dict[str, int]:
    """The findings the review reports (at or above the repository's severity_threshold), by severity."""
    if not answers:
        return {}
    placement = answers[-1].report.placement
    shown = [a.finding for a in placement.inline] + list(placement.outside)
    threshold = SEVERITY_RANK[config.severity_threshold]
    return {s: n for s in SEVERITY_RANK if (n := sum(f.severity == s for f in shown)) and SEVERITY_RANK[s] <= threshold}


def _blocking(config: RepoConfig, severity: str | None) -> RepoConfig:
    return config if severity is None else config.model_copy(update={"blocking_severity": severity})
