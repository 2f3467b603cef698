"""fix_pull_request: one fix per (pull request, head, finding or "all"), checked before anything is pushed or
suggested; asking again on the same head costs nothing, a push that lost to a person's is planned again once."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from reviewbot.app.port.gitdata import BranchMoved
from reviewbot.errors import ModelPermanent, OverBudget, RetryableError
from reviewbot.fixes.declined import Declined
from reviewbot.fixes.target import FixTarget
from reviewbot.inference.budget import BudgetSpent, review_estimate
from reviewbot.inference.memo import RedisMemo
from reviewbot.jobs.fix.ci_report import FixCommit, remember_fix_commit
from reviewbot.jobs.fix.fix_delivery import deliver, reply, tell_declined
from reviewbot.jobs.fix.fix_enqueue import ALL, FixArgs, Origin, enqueue_fix, may_fix
from reviewbot.jobs.fix.fix_plan import plan_fix
from reviewbot.jobs.fix.fix_targets import open_targets, thread_target, undone
from reviewbot.observe.jobcontext import current
from reviewbot.queue import retries
from reviewbot.review.publish.markdown import neutralize
from reviewbot.state import keys

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)
OFF = ("Fixes are turned off for this installation: its operator can turn them on with REVIEWBOT_FIXES=suggest "
       "(suggestions) or REVIEWBOT_FIXES=push (commits).")
EARLIER = {"pushed": "was pushed in {sha}", "suggested": "was suggested above"}


async def fix_pull_request(ctx: dict[str, Any], installation_id: int, repo: str, number: int, head_sha: str,
                           target: str, author: str, trigger: Origin, comment_id: int = 0) -> dict[str, Any]:
    """`target`: a finding's fingerprint (a thread's fix; `comment_id` is the thread) or "all"; `trigger`: where it
    was asked (thread, comment, button). The outcome is pushed, suggested or declined:<reason>."""
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    args = FixArgs(installation_id, repo, number, head_sha, target, author, trigger, comment_id)
    job_id = str(ctx.get("job_id") or args.job_id)
    port = deps.installation_port(installation_id)
    if (scope := current()) is not None:  # each paid request is charged as it arrives, however the fix ends
        scope.charge = functools.partial(deps.budget.charge, installation_id, repo, job_id)
    try:
        return await retries.settled(redis, job_id, "fix", {"repo": repo, "pr": number},
                                     _fix(deps, port, redis, args, job_id), first_s=deps.settings.retry_delay)
    finally:
        port.close()
        with contextlib.suppress(RedisError):
            await deps.budget.release(installation_id, repo, job_id)


async def _fix(deps: Deps, port: GitHubPort, redis: Any, args: FixArgs, job_id: str) -> dict[str, Any]:
    settings, repo, number = deps.settings, args.repo, args.number
    if settings.fixes == "off":
        await reply(port, args, OFF)
        return {"outcome": "off"}
    pull = await port.get_pull(repo, number)
    if pull.state != "open":
        return {"outcome": "closed"}
    if not await may_fix(port, repo, args.author, pull.author):
        log.info("fix refused: no write access", extra={"repo": repo, "pr": number})
        return {"outcome": "not allowed"}
    if pull.head_sha != args.head_sha:  # asked on an older head: the fix is made on the pull request's head
        return await _replan(port, redis, args, pull.head_sha)
    done = keys.fix_done_key(repo, number, args.head_sha, args.target)
    if (earlier := await redis.get(done)) is not None:
        return await _again(port, args, json.loads(earlier))
    targets, earlier = await undone(redis, args, await _targets(port, args, settings.marker_key(),
                                                                 settings.fix_max_findings))
    if not targets and earlier is not None:  # each was fixed on this head (it is the App's fix commit)
        return await _again(port, args, earlier)
    if not targets:
        return await _declined(port, redis, args, [], Declined("no-fixable-findings"))

    async def gate(held_tokens: int, held_usd: float) -> None:
        await deps.budget.reserve(args.installation_id, repo, job_id, held_usd, held_tokens)

    retrying = False
    try:
        await deps.budget.reserve(args.installation_id, repo, job_id, *review_estimate(settings))
        planned = await plan_fix(deps, port, redis, args.installation_id, pull, repo, targets, job_id, gate)
        delivered = await deliver(port, settings.fixes, args, pull, targets, planned, settings.marker_key())
    except RetryableError:  # the job runs again (a queued answer, a busy provider): the memo replays what was paid
        retrying = True
        raise
    except BudgetSpent as exc:
        return {"outcome": "budget", "reason": str(exc)}
    except OverBudget as exc:  # not remembered: asked again once the budget allows, it is made
        return await _declined(port, redis, args, [], Declined("budget", str(exc)[:200]), targets)
    except ModelPermanent as exc:  # the provider refused: said where the fix was asked, not remembered (ask again)
        await reply(port, args, f"No fix: the model request failed ({neutralize(str(exc)[:200])}). Nothing was "
                                "pushed.")
        return {"outcome": "failed", "reason": str(exc)}
    except Declined as declined:
        return await _declined(port, redis, args, targets, declined)
    except BranchMoved:  # a person pushed while the fix was made: theirs wins, the fix is planned on it
        return await _replan(port, redis, args, (await port.get_pull(repo, number)).head_sha)
    finally:
        if not retrying:
            await RedisMemo(redis, job_id).clear()
    outcome = {"outcome": delivered.outcome, "sha": delivered.sha}
    if delivered.sha:  # the pull request's CI on the fix commit is reported where the fix was asked
        thread = args.comment_id if args.origin == "thread" else 0
        await remember_fix_commit(redis, delivered.sha, FixCommit(args.installation_id, repo, number, 0, "push",
                                                                  thread))
    await _remember(redis, args, targets, outcome, delivered.sha)
    await reply(port, args, delivered.reply)
    log.info("fix delivered", extra={"repo": repo, "pr": number, "outcome": delivered.outcome})
    return {**outcome, "findings": [t.fingerprint for t in targets]}


async def _targets(port: GitHubPort, args: FixArgs, key: bytes, limit: int) -> list[FixTarget]:
    if args.target == ALL:
        return await open_targets(port, args.repo, args.number, key, limit)
    found = thread_target(await port.list_review_comments(args.repo, args.number), args.comment_id, key)
    return [found] if found is not None and found.fingerprint == args.target else []


async def _declined(port: GitHubPort, redis: Any, args: FixArgs, targets: Sequence[FixTarget],
                    declined: Declined, told: Sequence[FixTarget] = ()) -> dict[str, Any]:
    """`targets` are remembered as declined on this head; `told` (else `targets`) are named in the reply."""
    await tell_declined(port, args, told or targets, declined.text)
    outcome = {"outcome": f"declined:{declined.reason}", "reason": declined.detail}
    if targets:  # nothing to fix is not remembered: a later review on this head may leave findings
        await _remember(redis, args, targets, outcome, "")
    log.info("fix declined", extra={"repo": args.repo, "pr": args.number, "reason": declined.reason})
    return outcome


async def _remember(redis: Any, args: FixArgs, targets: Sequence[FixTarget], outcome: dict[str, Any],
                    new_head: str) -> None:
    """The outcome for this target and each finding it covered, on this head and on the head a push made (which is
    the fix itself): asking again there costs nothing."""
    value = json.dumps(outcome)
    heads = [args.head_sha, *([new_head] if new_head else [])]
    names = {args.target, *(t.fingerprint for t in targets)}
    for head in heads:
        for name in names:
            await redis.set(keys.fix_done_key(args.repo, args.number, head, name), value, ex=keys.STATE_TTL)


async def _again(port: GitHubPort, args: FixArgs, earlier: dict[str, Any]) -> dict[str, Any]:
    """Asked again on the same head: the earlier outcome is told, nothing is paid or pushed."""
    outcome = str(earlier.get("outcome") or "")
    said = EARLIER.get(outcome, "was declined: {reason}").format(sha=str(earlier.get("sha") or "")[:7],
                                                                   reason=earlier.get("reason") or outcome)
    if args.origin != "button":
        await reply(port, args, f"A fix for this on {args.head_sha[:7]} {said}; nothing more was done.")
    return {"outcome": "already", "earlier": outcome}


async def _replan(port: GitHubPort, redis: Any, args: FixArgs, head: str) -> dict[str, Any]:
    """The fix again, as its own job on `head`, once per head: a branch that keeps moving is told, not chased."""
    if not await redis.set(keys.fix_replan_key(args.repo, args.number, head, args.target), "1", nx=True,
                           ex=keys.STATE_TTL):
        await reply(port, args, "The branch moved again while the fix was being made; nothing was pushed. Ask "
                                "again once it is quiet.")
        return {"outcome": "declined:branch-moved"}
    stored = await enqueue_fix(redis, dataclasses.replace(args, head_sha=head))
    log.info("fix planned again on the new head", extra={"repo": args.repo, "pr": args.number, "sha": head[:12]})
    return {"outcome": "replanned", "sha": head, "stored": stored}
