"""A fix planned and checked: the model's edits on the review's cached prefix, applied to the head, checked, then
confirmed by the verifier and by a review of the change's own diff (every request on the pull request's session)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reviewbot.fixes.declined import Declined
from reviewbot.fixes.edits import Change
from reviewbot.fixes.target import FixTarget
from reviewbot.jobs.fix.fix_ask import ask_fix
from reviewbot.jobs.pr_review.gates import load_config
from reviewbot.jobs.pr_review.pr_prompt import pr_prompt
from reviewbot.review.diff.parse import parse_diff
from reviewbot.review.engine import ReviewInput, prepare, run_review
from reviewbot.review.findings.fingerprints import normalize_title

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort, PullInfo
    from reviewbot.jobs.deps import Deps

Gate = Callable[[int, float], Awaitable[None]]
BLOCKING = ("critical", "major")


@dataclass(frozen=True)
class Planned:
    """A checked change, why the model made it, and the lines of the pull request's diff a comment may sit on."""

    change: Change
    explanation: str
    commentable: dict[str, set[int]]


async def plan_fix(deps: Deps, port: GitHubPort, redis: Any, installation_id: int, pull: PullInfo, repo: str,
                   targets: Sequence[FixTarget], job_id: str, gate: Gate) -> Planned:
    """Declined with the first check that fails; the model is asked only while the checks before pass."""
    loaded = await load_config(port, repo, pull.base_ref, visibility=pull.visibility)
    built = await pr_prompt(deps.settings, port, redis, installation_id, repo, pull, loaded.config)
    # The review's own prompt (its remembered layout keeps the prefix): context selection is CPU, off the loop.
    messages = (await asyncio.to_thread(prepare, built.review_input)).prompt.messages
    affinity = built.review_input.affinity
    allowed = tuple(dict.fromkeys(p for t in targets for p in t.paths))
    head = {path: text for path in allowed if (text := await port.get_file(repo, path, pull.head_sha)) is not None}
    reviewer = deps.reviewer(job_id, built.tools, gate)
    checked = await ask_fix(reviewer, messages, affinity, targets, head)
    await _review_the_change(built.review_input, checked.change, checked.diff, targets, reviewer)
    commentable = {f.path: set().union(*(h.lines_on("RIGHT") for h in f.hunks)) for f in built.diff.files}
    return Planned(checked.change, checked.explanation, commentable)


async def _review_the_change(base: ReviewInput, change: Change, diff: str, targets: Sequence[FixTarget],
                             reviewer: Any) -> None:
    """The one review engine on the fix's own diff (the head as its base): a new critical or major finding, one
    that is not a finding being fixed, declines the fix."""
    prompt = dataclasses.replace(base.prompt, title=f"Fix: {targets[0].title}"[:200], description="",
                                 diff=parse_diff(diff), base_files=dict(change.before), snapshot=None, index=None,
                                 linked=())
    result = await run_review(ReviewInput(prompt=prompt, affinity=base.affinity), reviewer)
    fixing = {normalize_title(t.title) for t in targets}
    new = [f.title for f in result.output.findings
           if f.severity in BLOCKING and normalize_title(f.title) not in fixing]
    if new:
        raise Declined("new-findings", "; ".join(" ".join(t.split())[:100] for t in new[:3]))
