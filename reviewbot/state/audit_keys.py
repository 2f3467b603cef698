"""The audit service's Redis keys and job ids: an audit's record, plan and chunk results, branch locks, baselines."""

from __future__ import annotations

import hashlib

from reviewbot.state.keys import PREFIX

AUDIT_PREFIX = f"{PREFIX}:audit"
INDEX_KEY = f"{AUDIT_PREFIX}s"  # audit id → created (epoch s): the dashboard's and `audit status`'s list
TTL_S = 30 * 86_400  # an audit's record, plan and chunk results
LOCK_TTL_S = 2 * 86_400  # a running audit's lock lapses by itself if everything about it was lost


def audit_id(repo: str, branch: str, paths: list[str], full: bool, run: str) -> str:
    """One audit per request (`run`: a comment, a schedule period, a CLI request)."""
    text = "\x1f".join([repo.lower(), branch, "\x1e".join(sorted(paths)), "full" if full else "", run])
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def plan_job_id(audit: str) -> str:
    return f"{PREFIX}:audit-plan:{audit}"


def chunk_job_id(audit: str, index: int) -> str:
    return f"{PREFIX}:audit-chunk:{audit}:{index}"


def finish_job_id(audit: str) -> str:
    return f"{PREFIX}:audit-finish:{audit}"


def poll_job_id(audit: str) -> str:
    return f"{PREFIX}:audit-upload:{audit}"


def hold_id(audit: str) -> str:
    """The name of the audit's hold on the daily budgets (one for all its chunks; a field, not a key)."""
    return f"audit:{audit}"


def record_key(audit_id: str) -> str:
    """The audit's record (TTL_S)."""
    return f"{AUDIT_PREFIX}:{audit_id}"


def plan_key(audit_id: str) -> str:
    """What every chunk's request is rendered from (TTL_S): the prefix once, each chunk's context plan (apart from
    the record, which the dashboard and `audit status` read often)."""
    return f"{record_key(audit_id)}:plan"


def done_key(audit_id: str) -> str:
    """Chunk index → its result (TTL_S)."""
    return f"{record_key(audit_id)}:done"


def failed_key(audit_id: str) -> str:
    """Chunk index → why it was not audited (TTL_S)."""
    return f"{record_key(audit_id)}:failed"


def callers_key(audit_id: str) -> str:
    """Each audited file's strongest callers, for the chunk jobs' evidence steps (LOCK_TTL_S; deleted at the end)."""
    return f"{record_key(audit_id)}:callers"


def planning_key(audit_id: str) -> str:
    """How many times the audit's planning step started (LOCK_TTL_S): a plan that keeps dying is stopped."""
    return f"{record_key(audit_id)}:planning"


def edited_key(audit_id: str) -> str:
    """Set while the answer comment was edited recently (a few seconds): progress edits are spaced."""
    return f"{record_key(audit_id)}:edited"


def ledger_once(audit_id: str) -> str:
    """The name under which the audit's usage is written to the ledger once."""
    return f"{record_key(audit_id)}:ledger"


def running_key(repo: str, branch: str) -> str:
    """One running audit per repository and branch (LOCK_TTL_S)."""
    return f"{AUDIT_PREFIX}-running:{repo.lower()}@{branch}"


def files_key(repo: str, branch: str) -> str:
    """path → {"blob", "findings"} as of the branch's last completed audit (3 × TTL_S)."""
    return f"{AUDIT_PREFIX}-files:{repo.lower()}@{branch}"


def issue_key(repo: str) -> str:
    """The repository's tracking issue (where audits go when code scanning is not available; no expiry)."""
    return f"{AUDIT_PREFIX}-issue:{repo.lower()}"


def schedule_key(repo: str, period: str) -> str:
    """Set once a schedule period's audit of the repository was started (TTL_S)."""
    return f"{AUDIT_PREFIX}-schedule:{repo.lower()}:{period}"


def schedule_config_key(repo: str) -> str:
    """A repository's audit schedule as last read, with the `pushed_at` it was read at (a day at most)."""
    return f"{AUDIT_PREFIX}-schedule-config:{repo.lower()}"


def retired_key(repo: str, branch: str) -> str:
    """Set once the branch's per-folder code-scanning categories of earlier versions were closed."""
    return f"{AUDIT_PREFIX}-retired:{repo.lower()}@{branch}"
