"""GitHubPort: the operations the bot needs, over PyGithub, called from async code through a thread."""

from __future__ import annotations

import asyncio
import base64
import binascii
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from github import Auth, Github, GithubException

from reviewbot.app.errors import translate
from reviewbot.errors import GitHubError

T = TypeVar("T")
DIFF_MEDIA_TYPE = "application/vnd.github.diff"


def new_github(auth: Auth.Auth, api_url: str, timeout: int = 30) -> Github:
    """PyGithub with its sleeping retries and write spacing off: our job queue decides when to retry."""
    return Github(auth=auth, base_url=api_url, timeout=timeout, retry=None,
                  seconds_between_requests=None, seconds_between_writes=None)


@dataclass(frozen=True)
class PullInfo:
    number: int
    title: str
    body: str
    head_sha: str
    base_sha: str
    head_ref: str
    base_ref: str
    draft: bool
    author: str
    html_url: str
    state: str


class GitHubPort:
    """Everything reviewbot asks of GitHub for one installation; no PyGithub type leaks out."""

    def __init__(self, token: str, api_url: str, *, timeout: int = 30) -> None:
        self._gh = new_github(Auth.Token(token), api_url, timeout)

    def close(self) -> None:
        self._gh.close()

    def rate_limit(self) -> tuple[int, int] | None:
        """(remaining, limit) from the last response's x-ratelimit headers; None before any response."""
        remaining, limit = self._gh.requester.rate_limiting  # read without a request
        return None if remaining < 0 else (int(remaining), int(limit))

    async def _call(self, what: str, fn: Callable[[], T]) -> T:
        def guarded() -> T:
            try:
                return fn()
            except GithubException as exc:
                raise translate(exc, what) from None

        return await asyncio.to_thread(guarded)

    def _json(self, verb: str, url: str, *, body: Any = None, headers: dict[str, str] | None = None,
              params: dict[str, Any] | None = None) -> Any:
        _, data = self._gh.requester.requestJsonAndCheck(verb, url, parameters=params, headers=headers,
                                                         input=body)
        return data

    async def get_pull(self, repo: str, number: int) -> PullInfo:
        data = await self._call(f"GET pull {repo}#{number}",
                                lambda: self._json("GET", f"/repos/{_q(repo)}/pulls/{int(number)}"))
        return PullInfo(number=int(data["number"]), title=str(data.get("title") or ""),
                        body=str(data.get("body") or ""), head_sha=data["head"]["sha"],
                        base_sha=data["base"]["sha"], head_ref=data["head"]["ref"],
                        base_ref=data["base"]["ref"], draft=bool(data.get("draft")),
                        author=str((data.get("user") or {}).get("login") or ""),
                        html_url=str(data.get("html_url") or ""), state=str(data.get("state") or "open"))

    async def get_diff(self, repo: str, number: int) -> str:
        data = await self._call(f"GET diff {repo}#{number}", lambda: self._json(
            "GET", f"/repos/{_q(repo)}/pulls/{int(number)}", headers={"Accept": DIFF_MEDIA_TYPE}))
        # PyGithub wraps a non-JSON body as {"data": text}; an empty diff comes back as None.
        return str(data.get("data") or "") if isinstance(data, dict) else ""

    async def get_file(self, repo: str, path: str, ref: str) -> str | None:
        """A file's text at `ref`; None when it does not exist there, is binary or is over 1 MB."""
        url = f"/repos/{_q(repo)}/contents/{urllib.parse.quote(path)}"
        try:
            data = await self._call(f"GET {path}@{ref[:12]}",
                                    lambda: self._json("GET", url, params={"ref": ref}))
        except GitHubError as exc:
            if exc.status == 404:
                return None
            raise
        if not isinstance(data, dict) or data.get("encoding") != "base64":
            return None
        try:
            raw = base64.b64decode(str(data.get("content") or ""))
        except binascii.Error:
            return None
        if b"\0" in raw[:8000]:
            return None
        return raw.decode("utf-8", errors="replace")

    async def create_check_run(self, repo: str, body: dict[str, Any]) -> int:
        data = await self._call(f"POST check run {repo}",
                                lambda: self._json("POST", f"/repos/{_q(repo)}/check-runs", body=body))
        return int(data["id"])

    async def update_check_run(self, repo: str, check_run_id: int, body: dict[str, Any]) -> None:
        await self._call(f"PATCH check run {check_run_id}", lambda: self._json(
            "PATCH", f"/repos/{_q(repo)}/check-runs/{int(check_run_id)}", body=body))

    async def create_review(self, repo: str, number: int, body: dict[str, Any]) -> int:
        data = await self._call(f"POST review {repo}#{number}", lambda: self._json(
            "POST", f"/repos/{_q(repo)}/pulls/{int(number)}/reviews", body=body))
        return int(data["id"])

    async def commit_parents(self, repo: str, sha: str) -> list[str]:
        data = await self._call(f"GET commit {sha[:12]}", lambda: self._json(
            "GET", f"/repos/{_q(repo)}/commits/{urllib.parse.quote(sha, safe='')}"))
        return [str(p["sha"]) for p in data.get("parents") or []]

    async def list_reviews(self, repo: str, number: int) -> list[dict[str, Any]]:
        return await self._pages(f"GET reviews {repo}#{number}", f"/repos/{_q(repo)}/pulls/{int(number)}/reviews")

    async def list_review_comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        return await self._pages(f"GET review comments {repo}#{number}",
                                 f"/repos/{_q(repo)}/pulls/{int(number)}/comments")

    async def list_files(self, repo: str, number: int) -> list[dict[str, Any]]:
        """The PR's files (GitHub caps the list at 3,000), each with `patch` unless GitHub omitted it."""
        return await self._pages(f"GET files {repo}#{number}", f"/repos/{_q(repo)}/pulls/{int(number)}/files")

    async def create_issue_comment(self, repo: str, number: int, body: str) -> int:
        data = await self._call(f"POST comment {repo}#{number}", lambda: self._json(
            "POST", f"/repos/{_q(repo)}/issues/{int(number)}/comments", body={"body": body}))
        return int(data["id"])

    async def list_issue_comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        return await self._pages(f"GET comments {repo}#{number}", f"/repos/{_q(repo)}/issues/{int(number)}/comments")

    async def add_reaction(self, repo: str, comment_id: int, content: str = "eyes") -> None:
        await self._call(f"POST reaction {comment_id}", lambda: self._json(
            "POST", f"/repos/{_q(repo)}/issues/comments/{int(comment_id)}/reactions", body={"content": content}))

    async def permission(self, repo: str, user: str) -> str:
        """The user's permission on the repository: admin, maintain, write, triage, read or none."""
        try:
            data = await self._call(f"GET permission {user}", lambda: self._json(
                "GET", f"/repos/{_q(repo)}/collaborators/{urllib.parse.quote(user, safe='')}/permission"))
        except GitHubError as exc:
            if exc.status == 404:
                return "none"
            raise
        return str(data.get("role_name") or data.get("permission") or "none")

    async def _pages(self, what: str, url: str, limit: int = 3000) -> list[dict[str, Any]]:
        """Follow `Link: rel="next"` pages (100 per page) up to `limit` items."""
        def fetch() -> list[dict[str, Any]]:
            items: list[dict[str, Any]] = []
            next_url: str | None = url
            params: dict[str, Any] | None = {"per_page": 100}
            while next_url and len(items) < limit:
                headers, data = self._gh.requester.requestJsonAndCheck("GET", next_url, parameters=params)
                items.extend(data if isinstance(data, list) else [])
                next_url, params = _next_link(headers.get("link", "")), None
            return items[:limit]

        return await self._call(what, fetch)


def _next_link(header: str) -> str | None:
    for part in header.split(","):
        section = part.split(";")
        if len(section) > 1 and any(p.strip() == 'rel="next"' for p in section[1:]):
            return section[0].strip().strip("<>")
    return None


def _q(repo: str) -> str:
    owner, _, name = repo.partition("/")
    return f"{urllib.parse.quote(owner, safe='')}/{urllib.parse.quote(name, safe='')}"
