"""GitHubPort: the operations the bot needs, over PyGithub, called from async code through a thread."""

from __future__ import annotations

import asyncio
import logging
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from reviewbot.app.attachments import download_attachment
from reviewbot.app.credentials import Credentials, TokenCredentials
from reviewbot.app.limits import RateLimits
from reviewbot.app.requester import Requester, RetryPolicy, new_github, next_link
from reviewbot.app.threads import ReviewThread, resolve_thread, review_threads
from reviewbot.errors import GitHubError, GitHubRetryable, PermanentError

__all__ = ["DIFF_MEDIA_TYPE", "GitHubPort", "PullInfo", "new_github"]
log = logging.getLogger(__name__)
DIFF_MEDIA_TYPE = "application/vnd.github.diff"
# The contents API serves files of 1-100 MB only as raw (the default JSON has `"content": ""` for them).
RAW_MEDIA_TYPE = "application/vnd.github.raw+json"
MAX_LISTED = 3000  # GitHub lists at most 3,000 files of a pull request
MAX_CHECK_RUN_PAGES = 10  # GitHub keeps at most 1,000 runs of one name in a check suite


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
    labels: tuple[str, ...] = ()
    changed_files: int = 0


class GitHubPort:
    """Everything reviewbot asks of GitHub for one installation; no PyGithub type leaks out.

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

    async def get_pull(self, repo: str, number: int) -> PullInfo:
        data = await self._get(f"GET pull {repo}#{number}", f"/repos/{_q(repo)}/pulls/{int(number)}")
        return PullInfo(number=int(data["number"]), title=str(data.get("title") or ""),
                        body=str(data.get("body") or ""), head_sha=data["head"]["sha"],
                        base_sha=data["base"]["sha"], head_ref=data["head"]["ref"],
                        base_ref=data["base"]["ref"], draft=bool(data.get("draft")),
                        author=str((data.get("user") or {}).get("login") or ""),
                        html_url=str(data.get("html_url") or ""), state=str(data.get("state") or "open"),
                        labels=tuple(str(lb.get("name")) for lb in data.get("labels") or [] if isinstance(lb, dict)),
                        changed_files=int(data.get("changed_files") or 0))

    async def get_diff(self, repo: str, number: int) -> str:
        """The unified diff; GitHubError with status 406 when GitHub finds it too large (see bigdiff)."""
        data = await self._get(f"GET diff {repo}#{number}", f"/repos/{_q(repo)}/pulls/{int(number)}",
                               headers={"Accept": DIFF_MEDIA_TYPE})
        # PyGithub wraps a non-JSON body as {"data": text}; an empty diff comes back as None.
        return str(data.get("data") or "") if isinstance(data, dict) else ""

    async def get_file(self, repo: str, path: str, ref: str) -> str | None:
        """A file's text at `ref`; None when it does not exist there, is binary or is over GitHub's 100 MB."""
        url = f"/repos/{_q(repo)}/contents/{urllib.parse.quote(path)}"
        try:
            _, text = await self._http.request("GET", url, what=f"GET {path}@{ref[:12] or 'default'}",
                                               params={"ref": ref} if ref else None,
                                               headers={"Accept": RAW_MEDIA_TYPE}, raw=True)
        except GitHubError as exc:
            # 403 "too large" is GitHub's answer for a file over 100 MB, which no media type serves.
            if exc.status == 404 or (exc.status == 403 and "too large" in str(exc).lower()):
                return None
            raise
        if not isinstance(text, str) or "\0" in text[:8000]:
            return None
        return text

    async def list_tree(self, repo: str, ref: str) -> list[str]:
        """Paths of every file at `ref` (GitHub truncates trees over 100,000 entries; a warning says so)."""
        data = await self._get(f"GET tree {repo}@{ref[:12]}", f"/repos/{_q(repo)}/git/trees/{urllib.parse.quote(ref)}",
                               params={"recursive": "1"})
        if data.get("truncated"):
            log.warning("the repository tree is truncated", extra={"repo": repo})
        return [str(e["path"]) for e in data.get("tree") or [] if e.get("type") == "blob"]

    # ----- repository archive (the context engine reads the base tree from it)
    async def download_tarball(self, repo: str, ref: str, dest: Path, max_bytes: int) -> int:
        """Stream the gzip tarball of `ref` into `dest`; returns its size. GitHub answers 302 to a short-lived
        codeload URL that carries its own token, so the installation token is never sent there."""
        url = f"/repos/{_q(repo)}/tarball/{urllib.parse.quote(ref, safe='')}"
        headers, _ = await self._http.request("GET", url, what=f"GET tarball {repo}@{ref[:12]}")
        location = headers.get("location")
        if not location:
            raise GitHubError(f"GitHub sent no download location for the tarball of {repo}@{ref[:12]}")
        for attempt in range(1, self._http.retry.tries + 1):  # codeload's 5xx, like the API's, are retried
            try:
                size: int = await asyncio.to_thread(_stream_to_file, location, dest, max_bytes)
                return size
            except GitHubRetryable:
                if attempt == self._http.retry.tries:
                    raise
                await asyncio.sleep(self._http.retry.delay(attempt))
        raise AssertionError("unreachable")
    # ----- end of repository archive -------------------------------------------------------------------------------

    async def download_image(self, url: str, max_bytes: int) -> tuple[str, bytes]:
        """An image attached to a PR description: (content type, bytes), with the installation token."""
        return await download_attachment(self._http, url, max_bytes)

    async def create_check_run(self, repo: str, body: dict[str, Any]) -> int:
        """Create a check run; after an ambiguous failure (5xx) it adopts the run that request may have made,
        which would otherwise stay queued forever beside the one created next."""
        async def created() -> dict[str, Any] | None:
            found = await self.open_check_run(repo, body["head_sha"], body["name"], str(body.get("external_id")))
            return {"id": found} if found is not None else None

        data = await self._send("POST", f"POST check run {repo}", f"/repos/{_q(repo)}/check-runs", body,
                                recover=created)
        return int(data["id"])

    async def open_check_run(self, repo: str, head_sha: str, name: str, external_id: str) -> int | None:
        """The newest check run of this name and external id on the commit that has not completed, if any."""
        url: str | None = f"/repos/{_q(repo)}/commits/{_q1(head_sha)}/check-runs"
        params: dict[str, Any] | None = {"check_name": name, "filter": "all", "per_page": 100}
        pages = 0
        while url is not None and pages < MAX_CHECK_RUN_PAGES:  # every page, not just GitHub's default first 30
            headers, data = await self._http.request("GET", url, what=f"GET check runs {head_sha[:12]}",
                                                     params=params)
            runs = data.get("check_runs") if isinstance(data, dict) else None
            found = next((int(r["id"]) for r in runs or [] if isinstance(r, dict) and r.get("status") != "completed"
                          and r.get("external_id") == external_id and isinstance(r.get("id"), int)), None)
            if found is not None:
                return found
            url, params, pages = next_link(headers.get("link", "")), None, pages + 1
        return None

    async def suite_external_ids(self, repo: str, suite_id: int, name: str) -> list[str]:
        """The `external_id` of every check run called `name` in a check suite (all pages)."""
        url: str | None = f"/repos/{_q(repo)}/check-suites/{int(suite_id)}/check-runs"
        params: dict[str, Any] | None = {"check_name": name, "filter": "all", "per_page": 100}
        found: list[str] = []
        pages = 0
        while url is not None and pages < MAX_CHECK_RUN_PAGES:
            headers, data = await self._http.request("GET", url, what=f"GET suite {suite_id} check runs",
                                                     params=params)
            runs = data.get("check_runs") if isinstance(data, dict) else None
            found += [str(r.get("external_id") or "") for r in runs or [] if isinstance(r, dict)]
            url, params, pages = next_link(headers.get("link", "")), None, pages + 1
        return found

    async def update_check_run(self, repo: str, check_run_id: int, body: dict[str, Any]) -> None:
        await self._send("PATCH", f"PATCH check run {check_run_id}",
                         f"/repos/{_q(repo)}/check-runs/{int(check_run_id)}", body)

    async def create_review(self, repo: str, number: int, body: dict[str, Any]) -> int:
        """Post one review; after an ambiguous failure (5xx) it looks for the review before posting again."""
        async def posted() -> dict[str, Any] | None:
            return next((r for r in await self.list_reviews(repo, number)
                         if r.get("commit_id") == body.get("commit_id") and r.get("body") == body.get("body")), None)

        data = await self._send("POST", f"POST review {repo}#{number}",
                                f"/repos/{_q(repo)}/pulls/{int(number)}/reviews", body, recover=posted)
        return int(data["id"])

    async def commit_parents(self, repo: str, sha: str) -> list[str]:
        data = await self._get(f"GET commit {sha[:12]}",
                               f"/repos/{_q(repo)}/commits/{urllib.parse.quote(sha, safe='')}")
        return [str(p["sha"]) for p in data.get("parents") or []]

    async def compare_diff(self, repo: str, base: str, head: str) -> str:
        """The diff between two commits (what a push changed), for incremental reviews."""
        spec = f"{urllib.parse.quote(base, safe='')}...{urllib.parse.quote(head, safe='')}"
        data = await self._get(f"GET compare {base[:7]}...{head[:7]}", f"/repos/{_q(repo)}/compare/{spec}",
                               headers={"Accept": DIFF_MEDIA_TYPE})
        return str(data.get("data") or "") if isinstance(data, dict) else ""

    async def reply_to_review_comment(self, repo: str, number: int, comment_id: int, body: str) -> None:
        await self._send("POST", f"POST reply {comment_id}",
                         f"/repos/{_q(repo)}/pulls/{int(number)}/comments/{int(comment_id)}/replies", {"body": body})

    async def list_reviews(self, repo: str, number: int) -> list[dict[str, Any]]:
        return await self._pages(f"GET reviews {repo}#{number}", f"/repos/{_q(repo)}/pulls/{int(number)}/reviews")

    async def list_review_comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        return await self._pages(f"GET review comments {repo}#{number}",
                                 f"/repos/{_q(repo)}/pulls/{int(number)}/comments")

    async def list_files(self, repo: str, number: int) -> list[dict[str, Any]]:
        """The PR's files (GitHub caps the list at 3,000), each with `patch` unless GitHub omitted it."""
        return await self._pages(f"GET files {repo}#{number}", f"/repos/{_q(repo)}/pulls/{int(number)}/files")

    async def create_issue_comment(self, repo: str, number: int, body: str) -> int:
        data = await self._send("POST", f"POST comment {repo}#{number}",
                                f"/repos/{_q(repo)}/issues/{int(number)}/comments", {"body": body})
        return int(data["id"])

    async def list_issue_comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        return await self._pages(f"GET comments {repo}#{number}", f"/repos/{_q(repo)}/issues/{int(number)}/comments")

    async def add_reaction(self, repo: str, comment_id: int, content: str = "eyes") -> None:
        # Reacting twice is harmless (GitHub answers 200 for an existing reaction), so it may be retried.
        await self._send("POST", f"POST reaction {comment_id}",
                         f"/repos/{_q(repo)}/issues/comments/{int(comment_id)}/reactions", {"content": content},
                         idempotent=True)

    async def permission(self, repo: str, user: str) -> str:
        """The user's base permission on the repository: admin, write, read or none (maintain counts as write,
        triage as read). Not `role_name`, which may name an organisation's custom role."""
        try:
            data = await self._get(f"GET permission {user}",
                                   f"/repos/{_q(repo)}/collaborators/{_q1(user)}/permission")
        except GitHubError as exc:
            if exc.status == 404:
                return "none"
            raise
        return str(data.get("permission") or "none")

    async def review_threads(self, repo: str, number: int) -> list[ReviewThread]:
        """Every review thread of the PR with its resolved/outdated state (GraphQL)."""
        return await review_threads(self._http, repo, number)

    async def resolve_thread(self, thread_id: str) -> bool:
        """Resolve a review thread by its node id (GraphQL `resolveReviewThread`)."""
        return await resolve_thread(self._http, thread_id)

    # ----- audits (moves to its own mixin with the layout change) ----------------------------------------------
    async def default_branch(self, repo: str) -> str:
        data = await self._get(f"GET repo {repo}", f"/repos/{_q(repo)}")
        return str(data.get("default_branch") or "main")

    async def branch_head(self, repo: str, branch: str) -> str:
        """The commit a branch (or any ref) points at now."""
        data = await self._get(f"GET commit {repo}@{branch[:40]}",
                               f"/repos/{_q(repo)}/commits/{urllib.parse.quote(branch, safe='')}")
        return str(data["sha"])

    async def update_issue_comment(self, repo: str, comment_id: int, body: str) -> None:
        await self._send("PATCH", f"PATCH comment {comment_id}",
                         f"/repos/{_q(repo)}/issues/comments/{int(comment_id)}", {"body": body}, idempotent=True)

    async def installation_repos(self) -> list[tuple[str, str]]:
        """(full name, default branch) of every repository the installation may read."""
        found: list[tuple[str, str]] = []
        page = 1
        while True:
            data = await self._get("GET installation repositories", "/installation/repositories",
                                   params={"per_page": 100, "page": page})
            repos = [r for r in data.get("repositories") or [] if isinstance(r, dict)]
            found += [(str(r["full_name"]), str(r.get("default_branch") or "main")) for r in repos]
            if len(repos) < 100 or len(found) >= int(data.get("total_count") or 0) or len(found) >= MAX_LISTED:
                return found
            page += 1
    # ----- end of audits -------------------------------------------------------------------------------------------

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
def _stream_to_file(url: str, dest: Path, max_bytes: int, timeout: float = 120.0) -> int:
    """Download without holding the archive in memory; over `max_bytes` is a permanent, explained failure."""
    size = 0
    try:
        with requests.get(url, stream=True, timeout=timeout) as response:
            if response.status_code == 429 or response.status_code >= 500:
                raise GitHubRetryable(f"downloading the repository archive failed (HTTP {response.status_code})",
                                      status=response.status_code)
            if response.status_code != 200:
                raise GitHubError(f"downloading the repository archive failed (HTTP {response.status_code})",
                                  status=response.status_code)
            with dest.open("wb") as out:
                for chunk in response.iter_content(chunk_size=1 << 20):
                    size += len(chunk)
                    if size > max_bytes:
                        raise PermanentError(f"the repository archive is over {max_bytes / 1e6:,.0f} MB")
                    out.write(chunk)
    except requests.RequestException as exc:
        raise GitHubRetryable(f"downloading the repository archive failed: {type(exc).__name__}") from None
    return size


def _q(repo: str) -> str:
    owner, _, name = repo.partition("/")
    return f"{_q1(owner)}/{_q1(name)}"
