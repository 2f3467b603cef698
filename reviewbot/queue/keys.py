"""Job ids, Redis key names and the JSON job serializer (never pickle)."""

from __future__ import annotations

import json
from typing import Any

PREFIX = "reviewbot"
REVIEW_FUNCTION = "review_pull_request"


def review_job_id(repo: str, number: int, head_sha: str) -> str:
    """One job per (repository, PR, head SHA): enqueueing the same review twice is a no-op."""
    return f"{PREFIX}:review:{repo}#{number}@{head_sha}"


def check_run_key(repo: str, head_sha: str) -> str:
    """Where the check run of a review lives, so a retried job updates it instead of opening another."""
    return f"{PREFIX}:check:{repo}@{head_sha}"


def serialize(obj: Any) -> bytes:
    # Exceptions stored as job results have no JSON form; their repr is enough for arq's result record.
    return json.dumps(obj, default=repr, separators=(",", ":")).encode()


def deserialize(data: bytes) -> Any:
    return json.loads(data)
