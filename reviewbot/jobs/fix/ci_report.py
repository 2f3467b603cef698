"""The repository's CI as a fix's test bench: which fix commit belongs to which request (remembered when the fix is
pushed or its pull request opened), and, when a check suite on it completes, its check runs read and the result
told once where the fix was asked for. reviewbot runs nothing of the repository's code itself."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from reviewbot.app.identity import known_slug
from reviewbot.jobs.pr_review.checkrun import CHECK_NAME
from reviewbot.observe.ledger import Entry, Ledger
from reviewbot.queue import retries
from reviewbot.review.publish.markdown import code_span
from reviewbot.state import keys

if TYPE_CHECKING:
    from reviewbot.app.port.commit_checks import CheckRun
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)
FAILED = frozenset({"failure", "timed_out", "cancelled", "action_required", "startup_failure", "stale"})
MAX_NAMED = 5


@dataclass(frozen=True)
class FixCommit:
    """Where a fix commit's CI result is told: an issue or pull request number of `repo` (`report_to`), in a review
    thread of it (`thread`) or not, and the fix pull request when the fix is one (`pull`, else 0)."""

    installation_id: int
    repo: str
    report_to: int
    pull: int = 0
    kind: str = "audit"  # audit (a fix pull request) or push (a commit on the pull request's branch)
    thread: int = 0  # a review thread's first comment, when the fix was asked there: the result is a reply in it


async def remember_fix_commit(redis: Any, sha: str, fix: FixCommit) -> None:
    await redis.set(keys.fix_ci_key(fix.repo, sha), json.dumps(asdict(fix)), ex=keys.STATE_TTL)


def ci_text(runs: list[CheckRun]) -> tuple[str, str]:
    """(outcome, sentence): `CI passed: 14 checks` or `CI failed: `tests (3.12)` — the fix was left unmerged`."""
    failed = sorted({r.name for r in runs if r.conclusion in FAILED})
    if failed:
        named = ", ".join(code_span(n) for n in failed[:MAX_NAMED])
        more = f" and {len(failed) - MAX_NAMED} more" if len(failed) > MAX_NAMED else ""
        return "ci-failed", f"CI failed: {named}{more} — the fix was left unmerged."
    return "ci-passed", f"CI passed: {len(runs)} check{'s' if len(runs) != 1 else ''}."


async def report_fix_ci(ctx: dict[str, Any], installation_id: int, repo: str, head_sha: str) -> dict[str, Any]:
    """Told once all check runs on the fix commit but reviewbot's own completed; a suite that completes while others
    run reports nothing (the last one to complete does)."""
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    raw = await redis.get(keys.fix_ci_key(repo, head_sha))
    if raw is None:
        return {"outcome": "not a fix"}
    fix = FixCommit(**json.loads(raw))
    port = deps.installation_port(installation_id)
    job_id = str(ctx.get("job_id") or "")
    try:
        async def work() -> dict[str, Any]:
            slug = await known_slug(deps.settings, redis)
            runs = [r for r in await port.commit_check_runs(repo, head_sha)
                    if not (r.name == CHECK_NAME or (slug and r.app == slug))]
            if not runs:
                return {"outcome": "no checks"}
            if any(r.status != "completed" for r in runs):
                return {"outcome": "waiting"}
            outcome, text = ci_text(runs)
            if not await redis.set(keys.fix_ci_reported_key(repo, head_sha), outcome, nx=True, ex=keys.STATE_TTL):
                return {"outcome": "already told"}
            where = f" (#{fix.pull})" if fix.pull and fix.pull != fix.report_to else ""
            said = f"The fix{where} at {head_sha[:7]}: {text}"
            if fix.thread:
                await port.reply_to_review_comment(repo, fix.report_to, fix.thread, said)
            else:
                await port.create_issue_comment(repo, fix.report_to, said)
            await Ledger(redis, deps.settings.ledger_days).record(
                Entry(repo=repo, pr=fix.pull or fix.report_to, sha=head_sha, outcome=outcome, trigger="check_suite",
                      installation=installation_id, kind="fix", job_id=job_id), now=time.time())
            log.info("fix CI told", extra={"repo": repo, "sha": head_sha[:12], "outcome": outcome})
            return {"outcome": outcome, "checks": len(runs)}

        return await retries.settled(redis, job_id, "fix CI", {"repo": repo, "sha": head_sha[:12]}, work(),
                                     first_s=deps.settings.retry_delay)
    finally:
        port.close()
