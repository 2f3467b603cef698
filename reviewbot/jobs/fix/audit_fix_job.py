"""fix_audit_findings: fix pull requests for an audit's findings (asked with `@app fix` on the audit's issue, or by
`audit: {autofix: open-prs}`), one per finding or per file, each opened once; on a public repository none: a reply
that says why, with counts only."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from reviewbot.audit.disclosure import is_public
from reviewbot.audit.fix_select import FixGroup, groups, public_refusal, select
from reviewbot.audit.service_record import AuditRecord
from reviewbot.audit.service_state import AuditStore
from reviewbot.errors import OverBudget
from reviewbot.fixes.declined import Declined
from reviewbot.fixes.render import declined_reply
from reviewbot.inference.budget import BudgetSpent, review_estimate
from reviewbot.inference.memo import RedisMemo
from reviewbot.jobs.audit.audit_record import audit_findings
from reviewbot.jobs.audit.chunk_input import audit_tree
from reviewbot.jobs.fix.audit_fix_enqueue import alert_findings
from reviewbot.jobs.fix.audit_fix_plan import plan_audit_fix, plan_prefix
from reviewbot.jobs.fix.audit_fix_pull import deliver_audit_fix, named, tell
from reviewbot.observe.jobcontext import current
from reviewbot.queue import retries
from reviewbot.repos.cache import DirSnapshot
from reviewbot.state import keys

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)
CLAIM_S = 3_600  # a fix being made holds its finding this long at most (a crashed job's claim lapses)
OFF = ("Fixes are turned off for this installation: its operator can turn them on with REVIEWBOT_FIXES=push (fix "
       "pull requests) or REVIEWBOT_FIXES=suggest (a patch in a reply).")


async def fix_audit_findings(ctx: dict[str, Any], installation_id: int, repo: str, audit_id: str,
                             selectors: list[str], author: str, asked_in: int = 0) -> dict[str, Any]:
    """`selectors`: `all`, `CWE-89`, `#12` (an alert), `fp:<fingerprint>` (autofix); `asked_in`: the issue the
    command was written in (its replies and the CI result go there), 0 for autofix (the fix pull request itself)."""
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    job_id = str(ctx.get("job_id") or keys.audit_fix_job_id(audit_id, " ".join(selectors)))
    port = deps.installation_port(installation_id)
    if (scope := current()) is not None:  # each paid request is charged as it arrives
        scope.charge = functools.partial(deps.budget.charge, installation_id, repo, job_id)
    try:
        return await retries.settled(redis, job_id, "audit fix", {"repo": repo, "pr": asked_in},
                                     _fix(deps, port, redis, repo, audit_id, selectors, asked_in, job_id),
                                     first_s=deps.settings.retry_delay)
    finally:
        port.close()
        with contextlib.suppress(RedisError):
            await deps.budget.release(installation_id, repo, job_id)


async def _fix(deps: Deps, port: GitHubPort, redis: Any, repo: str, audit_id: str, selectors: list[str],
               asked_in: int, job_id: str) -> dict[str, Any]:
    record = await AuditStore(redis).load(audit_id)
    if record is None or record.status != "done":
        await tell(port, repo, asked_in, "That audit's record is gone (audits are kept 30 days): audit again, "
                                         "then ask for the fix.")
        return {"outcome": "gone"}
    if deps.settings.fixes == "off":
        await tell(port, repo, asked_in, OFF)
        return {"outcome": "off"}
    # Read now, not from the record: a repository audited private and made public since is public now.
    public = is_public(record.visibility) or is_public(await port.repo_visibility(record.repo))
    async with audit_tree(deps, port, record.repo, record.sha) as root:
        snapshot = DirSnapshot(root)
        findings = audit_findings(record.findings, snapshot.read)
        alerts = await alert_findings(port, record.repo, selectors, findings)
        chosen = select(findings, selectors, alerts)
        if public:  # never a public pull request naming an undisclosed vulnerability
            await tell(port, record.repo, asked_in, public_refusal(chosen))
            return {"outcome": "declined:public", "findings": len(chosen)}
        if not chosen:
            await tell(port, record.repo, asked_in,
                       "No verified finding of the latest audit matches that: nothing to fix.")
            return {"outcome": "declined:no-fixable-findings"}
        per = str((record.config.get("audit") or {}).get("fix_per") or "finding")
        prefix = plan_prefix(await AuditStore(redis).load_plan(audit_id))
        try:
            await deps.budget.reserve(record.installation_id, record.repo, job_id, *review_estimate(deps.settings))
        except (BudgetSpent, OverBudget) as exc:
            await tell(port, record.repo, asked_in, f"No fix was made: the budget is spent ({exc})."[:300])
            return {"outcome": "budget", "reason": str(exc)[:200]}
        numbers = {f.fingerprint: n for n, f in alerts.items()}
        outcomes = [await _one(deps, port, redis, record, prefix, snapshot.read, group, asked_in, job_id, numbers)
                    for group in groups(chosen, per)]
    opened = [o for o in outcomes if o.startswith(("pull-request", "suggested"))]
    return {"outcome": opened[0] if opened else outcomes[0], "each": outcomes}


async def _one(deps: Deps, port: GitHubPort, redis: Any, record: AuditRecord, prefix: Any, read: Any,
               group: FixGroup, asked_in: int, job_id: str, alert_numbers: dict[str, int]) -> str:
    """One group's fix, once: planned, checked, then a pull request (push) or a patch in the reply (suggest)."""
    once = keys.audit_fix_once_key(record.repo, record.branch, group.key)
    # Claimed before anything is paid: another job fixing the same finding (`fix all` beside `fix CWE-89`) waits
    # for nothing and pays nothing; a try of this job after a crash finds its own claim and goes on.
    claim = json.dumps({"outcome": "being made", "job": job_id})
    if not await redis.set(once, claim, nx=True, ex=CLAIM_S) and (earlier := await redis.get(once)) is not None:
        said = json.loads(earlier)
        if said.get("job") != job_id:
            pull = f" (#{said['pull']})" if said.get("pull") else ""
            await tell(port, record.repo, asked_in, f"A fix for {named(group)} was already {said['outcome']}"
                                                    f"{pull}; nothing more was done.")
            return "already"

    async def gate(held_tokens: int, held_usd: float) -> None:
        await deps.budget.reserve(record.installation_id, record.repo, job_id, held_usd, held_tokens)

    scope = f"{job_id}:{group.key}"
    try:
        planned = await plan_audit_fix(deps, redis, record, prefix, read, group, scope, gate)
    except (BudgetSpent, OverBudget) as exc:
        await redis.delete(once)  # not made: asking again tomorrow may
        await tell(port, record.repo, asked_in, declined_reply(group.targets, f"the budget is spent ({exc})"[:300]))
        return "budget"
    except Declined as declined:
        await RedisMemo(redis, scope).clear()
        await redis.set(once, json.dumps({"outcome": f"declined ({declined.reason})"}), ex=keys.FIX_PR_TTL)
        await tell(port, record.repo, asked_in, declined_reply(group.targets, declined.text))
        log.info("audit fix declined", extra={"repo": record.repo, "reason": declined.reason})
        return f"declined:{declined.reason}"
    outcome = await deliver_audit_fix(deps.settings.fixes, port, redis, record, group, planned, asked_in,
                                      alert_numbers, once, deps.settings.marker_key())
    # Cleared only once delivered: a try after GitHub failed replays the paid answers instead of paying again.
    await RedisMemo(redis, scope).clear()
    return outcome
