"""A fix pull request: a new `reviewbot/fix/…` branch at a fix commit, the pull request, and its commit's check runs."""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reviewbot.app.port.base import _q
from reviewbot.app.port.gitdata import GitDataAPI
from reviewbot.app.requester import next_link

MAX_CHECK_RUN_PAGES = 10  # 1,000 check runs on one commit: more than any CI reports


@dataclass(frozen=True)
class OpenedPull:
    number: int
    html_url: str
    head_sha: str


@dataclass(frozen=True)
class CheckRun:
    """A check run as the CI report reads it: by whom (the App's slug), its name, and how it ended."""

    name: str
    status: str  # queued, in_progress, completed (and GitHub's waiting, requested, pending)
    conclusion: str  # "" until completed
    app: str


class FixPullsAPI(GitDataAPI):
    """A commit on a new branch, POST pulls, GET commits/{ref}/check-runs."""

    async def commit_to_new_branch(self, repo: str, branch: str, parent: str, files: Mapping[str, str],
                                   message: str) -> str:
        """One commit on `parent` with `files` changed, and a new branch `branch` at it (422 if it exists)."""
        sha = await self.make_commit(repo, parent, files, message)
        await self.create_branch(repo, branch, sha)
        return sha

    async def create_pull(self, repo: str, *, head: str, base: str, title: str, body: str) -> OpenedPull:
        data = await self._send("POST", f"POST pull {head}", f"/repos/{_q(repo)}/pulls",
                                {"title": title, "head": head, "base": base, "body": body,
                                 "maintainer_can_modify": True})
        return OpenedPull(int(data["number"]), str(data.get("html_url") or ""),
                          str((data.get("head") or {}).get("sha") or ""))

    async def commit_check_runs(self, repo: str, sha: str) -> list[CheckRun]:
        """Every check run on a commit (the latest of each name, GitHub's default), all pages."""
        url: str | None = f"/repos/{_q(repo)}/commits/{urllib.parse.quote(sha, safe='')}/check-runs"
        params: dict[str, Any] | None = {"per_page": 100}
        found: list[CheckRun] = []
        pages = 0
        while url is not None and pages < MAX_CHECK_RUN_PAGES:
            headers, data = await self._http.request("GET", url, what=f"GET check runs {sha[:7]}", params=params)
            for run in (data.get("check_runs") if isinstance(data, dict) else None) or []:
                if isinstance(run, dict):
                    app = run.get("app") if isinstance(run.get("app"), dict) else {}
                    found.append(CheckRun(str(run.get("name") or ""), str(run.get("status") or ""),
                                          str(run.get("conclusion") or ""), str((app or {}).get("slug") or "")))
            url, params, pages = next_link(headers.get("link", "")), None, pages + 1
        return found
