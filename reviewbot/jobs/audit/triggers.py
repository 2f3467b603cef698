"""Starting an audit, whoever asks (a comment, the schedule, `reviewbot audit --repo OWNER/NAME`): the planning
job, stored once per request under an id derived from it."""

from __future__ import annotations

from typing import Any

from reviewbot.queue.enqueue import Stored, store_job
from reviewbot.queue.functions import PLAN_FUNCTION
from reviewbot.state.audit_keys import audit_id, plan_job_id


async def start_audit(pool: Any, installation_id: int, repo: str, *, branch: str = "", paths: list[str] | None = None,
                      full: bool = False, trigger: str, run: str, number: int | None = None) -> tuple[str, Stored]:
    """Queue the planning job; (the audit's id, whether it was stored now). `run` names the request: the same
    request twice is one audit, a new request is another."""
    scope = sorted({p.strip().strip("/") for p in paths or [] if p.strip().strip("/")})
    audit = audit_id(repo, branch, scope, full, run)
    stored = await store_job(pool, PLAN_FUNCTION, (audit, installation_id, repo),
                             {"branch": branch, "paths": scope, "full": full, "trigger": trigger, "number": number},
                             plan_job_id(audit))
    return audit, stored
