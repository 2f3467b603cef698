"""PyGithub exceptions translated into reviewbot's retryable and permanent errors."""

from __future__ import annotations

import time
from typing import Any

from github import GithubException

from reviewbot.errors import GitHubError, GitHubRetryable

SECONDARY_LIMIT = "secondary rate limit"


def translate(exc: GithubException, what: str) -> GitHubError | GitHubRetryable:
    """Map a PyGithub error to ours, reading rate-limit headers for how long to wait."""
    headers: dict[str, Any] = {k.lower(): v for k, v in (exc.headers or {}).items()}
    message = _message(exc.data)
    status = exc.status
    if status in (403, 429) and _rate_limited(headers, message):
        return GitHubRetryable(f"{what}: GitHub rate limit ({message})", status=status,
                               retry_after=_retry_after(headers))
    if status >= 500 or status in (408, 429):
        return GitHubRetryable(f"{what}: GitHub answered {status}", status=status, retry_after=None)
    return GitHubError(f"{what}: GitHub answered {status}: {message}", status=status)


def _message(data: Any) -> str:
    if isinstance(data, dict):
        return str(data.get("message") or "")[:300]
    return str(data or "")[:300]


def _rate_limited(headers: dict[str, Any], message: str) -> bool:
    return ("retry-after" in headers or headers.get("x-ratelimit-remaining") == "0"
            or SECONDARY_LIMIT in message.lower() or "rate limit" in message.lower())


def _retry_after(headers: dict[str, Any]) -> float:
    """Honour retry-after, else the reset time when the quota is spent, else a minute (GitHub's guidance)."""
    if "retry-after" in headers:
        try:
            return max(1.0, float(headers["retry-after"]))
        except ValueError:
            pass
    if headers.get("x-ratelimit-remaining") == "0" and "x-ratelimit-reset" in headers:
        try:
            return max(1.0, float(headers["x-ratelimit-reset"]) - time.time())
        except ValueError:
            pass
    return 60.0
