"""PortBase: one installation's requester and the helpers every GitHub resource of the port shares."""

from __future__ import annotations

import urllib.parse
from typing import Any

from reviewbot.app.credentials import Credentials, TokenCredentials
from reviewbot.app.limits import RateLimits
from reviewbot.app.requester import Requester, RetryPolicy

DIFF_MEDIA_TYPE = "application/vnd.github.diff"
MAX_LISTED = 3000  # GitHub lists at most 3,000 files of a pull request


class PortBase:
    """The requester of one installation; no PyGithub type leaks out.

    `credentials` is an installation (refreshed once on a 401) or a plain token; `limits` is shared by
    every port of the process so rate limits and write spacing hold per installation, not per job.
    """

    def __init__(self, credentials: str | Credentials, api_url: str, *, timeout: int = 30,
                 limits: RateLimits | None = None, retry: RetryPolicy | None = None) -> None:
        creds = TokenCredentials(credentials) if isinstance(credentials, str) else credentials
        self._http = Requester(api_url, creds, limits=limits, retry=retry, timeout=timeout)

    def close(self) -> None:
        self._http.close()

    async def _get(self, what: str, url: str, **kw: Any) -> Any:
        return (await self._http.request("GET", url, what=what, **kw))[1]

    def rate_limit(self) -> tuple[int, int] | None:
        """(remaining, limit) from the last response's x-ratelimit headers; None before any response."""
        quota = self._http.limits.quota(self._http.credentials.key)
        return None if quota is None else (quota.remaining, quota.limit)

    async def _send(self, verb: str, what: str, url: str, body: Any, **kw: Any) -> Any:
        return (await self._http.request(verb, url, what=what, body=body, **kw))[1]

    async def _pages(self, what: str, url: str, limit: int = MAX_LISTED) -> list[dict[str, Any]]:
        """Follow `Link: rel="next"` pages (100 per page) up to `limit` items."""
        items: list[dict[str, Any]] = []
        async for page in self._http.pages(url, what=what):
            items.extend(page)
            if len(items) >= limit:
                break
        return items[:limit]


def _q1(part: str) -> str:
    return urllib.parse.quote(part, safe="")


def _q(repo: str) -> str:
    owner, _, name = repo.partition("/")
    return f"{_q1(owner)}/{_q1(name)}"
