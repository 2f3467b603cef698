"""One GitHub request made robust: PyGithub in a thread, a fresh credential once after a 401, rate limits,
write spacing, and a few jittered retries for 5xx and connection errors."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import random
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from github import Auth, Github, GithubException
from github.Requester import Requester as PyRequester

from reviewbot.app.credentials import Credentials
from reviewbot.app.github_errors import translate
from reviewbot.app.limits import RateLimits
from reviewbot.errors import GitHubError, GitHubRetryable
from reviewbot.observe.fencing import check_lease

log = logging.getLogger(__name__)
WRITE_VERBS = frozenset({"POST", "PATCH", "PUT", "DELETE"})
# Our PATCHes set a state (a check run's status), so sending one twice is harmless; POSTs create things.
IDEMPOTENT_VERBS = frozenset({"GET", "PATCH", "PUT", "DELETE"})

Headers = dict[str, Any]
Recover = Callable[[], Awaitable[Any]]


def new_github(auth: Auth.Auth | None, api_url: str, timeout: int = 30) -> Github:
    """PyGithub with its own sleeping retries and spacing off: `Requester` decides, visibly."""
    return Github(auth=auth, base_url=api_url, timeout=timeout, retry=None,
                  seconds_between_requests=None, seconds_between_writes=None)


def graphql_url(api_url: str) -> str:
    """`https://api.github.com/graphql`, or `https://HOST/api/graphql` for `https://HOST/api/v3`."""
    parts = urllib.parse.urlsplit(api_url)
    return urllib.parse.urlunsplit(parts._replace(path=PyRequester.get_graphql_prefix(parts.path)))


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries for 5xx and connection errors: short, jittered, then the job queue takes over."""

    tries: int = 3
    first_s: float = 0.5
    max_s: float = 4.0

    def delay(self, attempt: int) -> float:
        return random.uniform(self.first_s, min(self.max_s, self.first_s * 2 ** attempt))  # noqa: S311


class Requester:
    def __init__(self, api_url: str, credentials: Credentials, *, limits: RateLimits | None = None,
                 retry: RetryPolicy | None = None, timeout: int = 30) -> None:
        self.api_url = api_url
        self.credentials = credentials
        self.limits = limits or RateLimits()
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        self._gh: Github | None = None
        self._retired: list[Github] = []
        self._lock = asyncio.Lock()

    def close(self) -> None:
        for gh in [*self._retired, *([self._gh] if self._gh else [])]:
            gh.close()
        self._gh, self._retired = None, []

    async def _client(self, *, refresh_after: Github | None = None) -> Github:
        async with self._lock:
            if self._gh is not None and (refresh_after is None or self._gh is not refresh_after):
                return self._gh  # current, or already refreshed by a concurrent request
            auth = await self.credentials.auth(refresh=refresh_after is not None)
            if self._gh is not None:
                self._retired.append(self._gh)  # other threads may still be using it
            self._gh = new_github(auth, self.api_url, self.timeout)
            return self._gh

    async def request(self, verb: str, url: str, *, what: str, body: Any = None, headers: dict[str, str] | None = None,
                      params: dict[str, Any] | None = None, write: bool | None = None,
                      idempotent: bool | None = None, recover: Recover | None = None,
                      raw: bool = False) -> tuple[Headers, Any]:
        """Send one request; `recover`, for a POST, looks for what an ambiguous failure may have created;
        with `raw`, a successful answer's body comes back as text, never parsed."""
        write = verb in WRITE_VERBS if write is None else write
        idempotent = verb in IDEMPOTENT_VERBS if idempotent is None else idempotent
        refreshed, attempt = False, 0
        while True:
            attempt += 1
            if write:  # a job whose lease another worker took posts nothing more (fencing)
                await check_lease()
            gh = await self._client()
            try:
                return await self._once(gh, verb, url, what, write, body, headers, params, raw)
            except GithubException as exc:
                if exc.status == 401 and self.credentials.refreshable and not refreshed:
                    refreshed, attempt = True, attempt - 1  # a stale token is not a failed try
                    await self._client(refresh_after=gh)
                    continue
                error = translate(exc, what)
            except OSError as exc:  # requests' ConnectionError and Timeout are OSErrors
                error = GitHubRetryable(f"{what}: cannot reach GitHub ({type(exc).__name__})")
            if isinstance(error, GitHubError) or attempt >= self.retry.tries:
                raise error from None
            if not await self._pause(error, attempt, idempotent or recover is not None, what):
                raise error from None
            if recover is not None and (found := await recover()) is not None:
                log.info("a failed write had gone through; not repeating it", extra={"what": what})
                return {}, found

    async def _once(self, gh: Github, verb: str, url: str, what: str, write: bool, body: Any,
                    headers: dict[str, str] | None, params: dict[str, Any] | None,
                    raw: bool = False) -> tuple[Headers, Any]:
        key = self.credentials.key
        await self.limits.check_quota(key, what)
        slot = self.limits.write_slot(key) if write else contextlib.nullcontext()
        async with slot:
            try:
                send = functools.partial(_raw_and_check, gh.requester) if raw else gh.requester.requestJsonAndCheck
                answer: tuple[Headers, Any] = await asyncio.to_thread(
                    send, verb, url, parameters=params, headers=headers, input=body)
            except GithubException as exc:
                self.limits.observe(key, exc.headers)
                raise
        self.limits.observe(key, answer[0])
        return answer

    async def _pause(self, error: GitHubRetryable, attempt: int, repeatable: bool, what: str) -> bool:
        """Wait before the next try; False when the job queue should take over instead."""
        if error.status in (403, 429):  # rate limited: GitHub did not process the request
            return await self.limits.pause(what, error.retry_after or 60.0)
        if not repeatable:
            return False  # a POST that may have created something: the job decides
        delay = self.retry.delay(attempt)
        log.info("GitHub request failed; retrying", extra={"what": what, "error": str(error), "wait_s": delay})
        await asyncio.sleep(delay)
        return True

    async def pages(self, url: str, *, what: str, params: dict[str, Any] | None = None) -> AsyncIterator[list[Any]]:
        """Each page of a list, following `Link: rel="next"` (page numbers or cursors alike)."""
        next_url: str | None = url
        query: dict[str, Any] | None = {"per_page": 100, **(params or {})}
        while next_url:
            headers, data = await self.request("GET", next_url, what=what, params=query)
            yield data if isinstance(data, list) else []
            next_url, query = next_link(headers.get("link", "")), None

    async def graphql(self, query: str, variables: dict[str, Any], *, what: str,
                      mutation: bool = False) -> dict[str, Any]:
        _, data = await self.request("POST", graphql_url(self.api_url), what=what, write=mutation, idempotent=True,
                                     body={"query": query, "variables": variables})
        errors = data.get("errors") if isinstance(data, dict) else None
        if errors:
            first = errors[0] if isinstance(errors[0], dict) else {}
            kind, message = str(first.get("type") or ""), str(first.get("message") or "GraphQL error")[:300]
            if kind == "RATE_LIMITED":
                raise GitHubRetryable(f"{what}: GitHub rate limit ({message})", status=403, retry_after=60.0)
            raise GitHubError(f"{what}: {message}", status={"NOT_FOUND": 404, "FORBIDDEN": 403}.get(kind, 422))
        result = data.get("data") if isinstance(data, dict) else None
        return result if isinstance(result, dict) else {}


def _raw_and_check(requester: PyRequester, verb: str, url: str, **kw: Any) -> tuple[Headers, str]:
    """requestJsonAndCheck without parsing a successful body: PyGithub would turn a raw file that happens to be
    JSON into a dict, and refuse one that starts with `{` but is not JSON."""
    status, headers, output = requester.requestJson(verb, url, **kw)
    if status >= 400:
        try:
            data: Any = json.loads(output) if output else None
        except ValueError:
            data = {"data": output}
        raise requester.createException(status, headers, data)
    return headers, output


def next_link(header: str) -> str | None:
    for part in header.split(","):
        section = part.split(";")
        if len(section) > 1 and any(p.strip() == 'rel="next"' for p in section[1:]):
            return section[0].strip().strip("<>")
    return None
