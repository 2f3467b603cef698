"""The one review pipeline: a pull request's head reviewed and published, for the worker's job and the Action alike."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reviewbot.jobs.pr_review.gates import only_merged_base
from reviewbot.jobs.pr_review.post_review import publish
from reviewbot.jobs.pr_review.pr_prompt import pr_prompt
from reviewbot.jobs.pr_review.screenshots import screenshots
from reviewbot.observe.jobcontext import note_review
from reviewbot.review.config import LoadedConfig, RepoConfig, with_security
from reviewbot.review.prompt.calibration import prompt_chars

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort, PullInfo
    from reviewbot.inference.structured import StructuredReviewer
    from reviewbot.inference.tools import RepoTools
    from reviewbot.jobs.pr_review.checkrun import CheckRun
    from reviewbot.queue.request import ReviewRequest
    from reviewbot.review.engine import ReviewInput, ReviewResult
    from reviewbot.review.findings.anchoring import Anchored
    from reviewbot.review.findings.dismissals import Learning
    from reviewbot.settings import Settings
    from reviewbot.state.prompt_stores import RedisLike

# The model for one review (its tools and the description's images): memo, token budget and budget gate are the
# caller's. Answer runs the review once (the worker: a queued request defers the job) or polls in-process.
MakeReviewer = Callable[["RepoTools | None", list[dict[str, Any]]], "StructuredReviewer"]
Answer = Callable[["ReviewInput", "StructuredReviewer"], Awaitable["ReviewResult"]]
Remembered = Callable[[RepoConfig], Awaitable[tuple["Learning", ...]]]


@dataclass(frozen=True)
class ReviewPorts:
    """What differs between the callers, passed in rather than written twice."""

    settings: Settings
    port: GitHubPort
    store: RedisLike  # prompt layouts and token calibration: the service's Redis, the Action's in-memory stand-in
    reviewer: MakeReviewer
    answer: Answer
    learnings: Remembered  # the dismissals that apply: remembered ones (the service) and the configuration's
    app: str  # the App's name as people mention it
    installation_id: int = 0  # part of the session-affinity key; the Action has none


@dataclass(frozen=True)
class Reviewed:
    """How the pipeline ended: `reviewed` (published), `skipped` (a merge of the base only) or `superseded`."""

    outcome: str
    reason: str = ""
    review_id: int = 0
    comments: int = 0
    dismissed: int = 0
    resolved: int = 0
    incremental: bool = False
    usage: dict[str, Any] | None = None
    posted: tuple[tuple[str, Anchored], ...] = ()  # (fingerprint, finding) posted as line comments
    fixed: tuple[str, ...] = ()  # fingerprints of earlier findings whose threads were resolved as fixed

    def as_json(self) -> dict[str, Any]:
        """The job's result as arq keeps it."""
        if self.outcome != "reviewed":
            return {"outcome": self.outcome, **({"reason": self.reason} if self.reason else {})}
        return {"outcome": "reviewed", "review_id": self.review_id, "comments": self.comments,
                "dismissed": self.dismissed, "resolved": self.resolved, "incremental": self.incremental,
                "usage": self.usage}


async def review_head(ports: ReviewPorts, check: CheckRun, request: ReviewRequest, pull: PullInfo,
                      loaded: LoadedConfig, *, security: bool, full: bool) -> Reviewed:
    """Prompt, model, verification and publication of the PR's head; the caller has opened the check run and
    decided the review is wanted. Every way it ends completes the check run."""
    port, settings, repo, head_sha = ports.port, ports.settings, request.repo, request.head_sha
    before = request.before
    if request.trigger == "synchronize" and before and await only_merged_base(port, repo, head_sha, before,
                                                                             pull.base_sha):
        await check.complete("skipped", "Base branch merged in", "This push only merged the base branch into the "
                             f"pull request; the review of {before[:7]} still applies. Comment "
                             f"`@{ports.app} review` to review again.")
        return Reviewed("skipped", "update branch")
    config = with_security(loaded.config) if security else loaded.config
    images, image_notes = await screenshots(port, settings, repo, pull)
    built = await pr_prompt(settings, port, ports.store, ports.installation_id, repo, pull, config,
                            (*image_notes, *loaded.notes))
    result = await ports.answer(built.review_input, ports.reviewer(built.tools, images))
    note_review(result.report)  # observe: files and findings for the usage ledger
    await built.stores.save_layout(built.layout_key, result.plan.layout)
    if result.report.usage.requests == 1:  # one request: its prompt_tokens measure exactly what we estimated
        tools = built.tools
        sent = prompt_chars(result.prompt.messages, tools.definitions() if tools is not None else None)
        await built.stores.observe(settings.model, sent, result.report.usage.prompt_tokens)
    if (await port.get_pull(repo, request.number)).head_sha != head_sha:  # GitHub's word, whatever the deliveries
        await check.complete("cancelled", "Review cancelled", "A newer commit was pushed while this one was being "
                             "reviewed; the newer commit is reviewed instead.")
        return Reviewed("superseded")
    posted = await publish(port, check, pull=pull, head_sha=head_sha, report=result.report, diff=built.diff,
                           config=config, run_id=request.run, full=full, key=settings.marker_key(),
                           config_errors=tuple(loaded.errors), unseen=built.unseen,
                           learnings=await ports.learnings(config), app=ports.app)
    return Reviewed("reviewed", review_id=posted.review_id, comments=posted.comments, dismissed=posted.dismissed,
                    resolved=posted.resolved, incremental=posted.incremental, usage=result.report.usage.as_json(),
                    posted=posted.findings, fixed=posted.fixed)
