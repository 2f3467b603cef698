"""Job ids, Redis key names and the JSON job serializer (never pickle)."""

from __future__ import annotations

import json
from typing import Any

PREFIX = "reviewbot"
REVIEW_FUNCTION = "review_pull_request"
COMMAND_FUNCTION = "handle_command"
CONVERSATION_FUNCTION = "answer_thread"
SUITE_FUNCTION = "rerun_suite"
PUSH_AUDIT_FUNCTION = "audit_after_push"
# GitHub keeps deliveries, and lets them be redelivered, for 7 days: ids and reviewed SHAs are kept a day longer.
DELIVERY_TTL = 8 * 86_400
STATE_TTL = 30 * 86_400


def review_job_id(repo: str, number: int, head_sha: str) -> str:
    """One job per (repository, PR, head SHA): a second trigger while it is queued or running is a no-op."""
    return f"{PREFIX}:review:{repo}#{number}@{head_sha}"


def command_job_id(repo: str, comment_id: int) -> str:
    return f"{PREFIX}:command:{repo}:{comment_id}"


def conversation_job_id(repo: str, comment_id: int) -> str:
    return f"{PREFIX}:conversation:{repo}:{comment_id}"


def suite_job_id(repo: str, suite_id: int) -> str:
    return f"{PREFIX}:suite:{repo}:{suite_id}"


def push_audit_job_id(repo: str, branch: str) -> str:
    """One job per repository and branch: pushes while it waits (the debounce window) store nothing more."""
    return f"{PREFIX}:push-audit:{repo.lower()}@{branch}"


def conversation_count_key(scope: str, day: str) -> str:
    """Questions answered per day, per PR (`acme/widgets#7`) or per user (`acme/widgets@alice`)."""
    return f"{PREFIX}:conversations:{scope}:{day}"


def learnings_key(repo: str) -> str:
    """The repository's remembered dismissals: code key (or rule) → JSON."""
    return f"{PREFIX}:learnings:{repo}"


def delivery_key(guid: str) -> str:
    return f"{PREFIX}:delivery:{guid}"


def reviewed_key(repo: str, number: int, head_sha: str, config_digest: str) -> str:
    """Set once a SHA was reviewed under a configuration: automatic triggers of it cost nothing after that."""
    return f"{PREFIX}:reviewed:{repo}#{number}@{head_sha}:{config_digest}"


def command_count_key(scope: str, window: int) -> str:
    """Review commands counted in one fixed window, per PR (`repo#n`) or per user (`user:login`)."""
    return f"{PREFIX}:commands:{scope}:{window}"


def full_key(job_id: str) -> str:
    """Set when a `full review` arrives while a normal review of the same SHA is queued: upgrades it."""
    return f"{PREFIX}:full:{job_id}"


def security_key(job_id: str) -> str:
    """Set when a `security-review` arrives while a review of the same SHA is queued: upgrades it."""
    return f"{PREFIX}:security:{job_id}"


def paused_key(repo: str, number: int) -> str:
    return f"{PREFIX}:paused:{repo}#{number}"


def polite_key(repo: str, number: int) -> str:
    """Marks that a non-collaborator was already told, once per PR, that they cannot trigger reviews."""
    return f"{PREFIX}:polite:{repo}#{number}"


def slots_key(installation_id: int) -> str:
    return f"{PREFIX}:slots:{installation_id}"


def attempts_key(job_id: str) -> str:
    return f"{PREFIX}:attempts:{job_id}"


def check_run_key(repo: str, head_sha: str) -> str:
    """Where the check run of a review lives, so a retried job updates it instead of opening another."""
    return f"{PREFIX}:check:{repo}@{head_sha}"


def check_result_key(repo: str, head_sha: str) -> str:
    return f"{PREFIX}:check-result:{repo}@{head_sha}"


def serialize(obj: Any) -> bytes:
    # Exceptions stored as job results have no JSON form; their repr is enough for arq's result record.
    return json.dumps(obj, default=repr, separators=(",", ":")).encode()


def deserialize(data: bytes) -> Any:
    return json.loads(data)
