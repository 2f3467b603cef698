"""The audit jobs' names and ids: each id derives from the audit (and chunk), so enqueueing twice stores one job."""

from __future__ import annotations

import hashlib

PLAN_FUNCTION = "plan_audit"
CHUNK_FUNCTION = "audit_chunk"
FINISH_FUNCTION = "finish_audit"
SCHEDULE_FUNCTION = "audit_schedules"
POLL_FUNCTION = "audit_upload_status"


def audit_id(repo: str, branch: str, paths: list[str], full: bool, run: str) -> str:
    """One audit per request (`run`: a comment, a schedule period, a CLI request)."""
    text = "\x1f".join([repo.lower(), branch, "\x1e".join(sorted(paths)), "full" if full else "", run])
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def plan_job_id(audit: str) -> str:
    return f"reviewbot:audit-plan:{audit}"


def chunk_job_id(audit: str, index: int) -> str:
    return f"reviewbot:audit-chunk:{audit}:{index}"


def finish_job_id(audit: str) -> str:
    return f"reviewbot:audit-finish:{audit}"


def poll_job_id(audit: str) -> str:
    return f"reviewbot:audit-upload:{audit}"


def hold_id(audit: str) -> str:
    """The name of the audit's hold on the daily budgets (one for all its chunks)."""
    return f"audit:{audit}"
