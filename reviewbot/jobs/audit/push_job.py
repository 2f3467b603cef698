"""audit_after_push: pushes to the default branch waited out their debounce window; if the branch's
`.github/reviewbot.yml` asks for it (`audit: {on_push: true}`), an incremental audit of the branch's head now,
through the normal planning job. While an audit of the branch runs, the pushes stay owed: the job defers itself."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from arq import Retry

from reviewbot.audit.service_state import AuditStore
from reviewbot.jobs.audit.triggers import start_audit
from reviewbot.jobs.pr_review.gates import load_config
from reviewbot.queue import functions, retries
from reviewbot.queue.enqueue import Stored, store_job
from reviewbot.state import keys

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps
    from reviewbot.settings import Settings

log = logging.getLogger(__name__)
PUSH_TRIGGER = "push"
MIN_RECHECK_S = 30.0  # a running audit is looked at again no sooner than this, whatever the debounce window


def recheck_s(settings: Settings) -> float:
    return max(MIN_RECHECK_S, settings.audit_push_delay)


async def owe_push(redis: Any, installation_id: int, repo: str, branch: str, defer_s: float) -> Stored:
    """Queue (again) the branch's push job `defer_s` from now; a push job already waiting is enough."""
    return await store_job(redis, functions.PUSH_AUDIT_FUNCTION, (installation_id, repo, branch), {},
                           keys.push_audit_job_id(repo, branch), defer_s=defer_s)


async def audit_after_push(ctx: dict[str, Any], installation_id: int, repo: str, branch: str) -> dict[str, Any]:
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    if (running := await AuditStore(redis).running(repo, branch)) is not None:
        # Not dropped: the next try, after that audit, audits the head as it is then (every push so far).
        log.info("push audit waits for the running audit", extra={"repo": repo, "audit": running})
        raise Retry(defer=recheck_s(deps.settings))
    job_id = str(ctx.get("job_id") or keys.push_audit_job_id(repo, branch))
    port = deps.installation_port(installation_id)
    try:
        return await retries.settled(redis, job_id, "push audit", {"repo": repo},
                                     _start(port, redis, installation_id, repo, branch),
                                     first_s=deps.settings.retry_delay)
    finally:
        port.close()


async def _start(port: GitHubPort, redis: Any, installation_id: int, repo: str, branch: str) -> dict[str, Any]:
    if await port.default_branch(repo) != branch:  # renamed or switched since the push
        return {"outcome": "not the default branch"}
    if not (await load_config(port, repo, branch, visibility=None)).config.audit.on_push:
        return {"outcome": "off"}
    sha = await port.branch_head(repo, branch)
    # The audit's id derives from the head: this job run twice for one head (a redelivery) is one audit.
    audit, stored = await start_audit(redis, installation_id, repo, branch=branch, trigger=PUSH_TRIGGER,
                                      run=f"push-{sha}")
    log.info("push audit started", extra={"repo": repo, "audit": audit, "sha": sha[:12], "stored": stored})
    return {"outcome": "started" if stored == "queued" else stored, "audit": audit}
