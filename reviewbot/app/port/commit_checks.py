"""The check runs on a commit (a fix's CI), all pages, as the CI report reads them."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any

from reviewbot.app.port.base import PortBase, _q
from reviewbot.app.requester import next_link

MAX_CHECK_RUN_PAGES = 10  # 1,000 check runs on one commit: more than any CI reports


@dataclass(frozen=True)
class CheckRun:
    """A check run as the CI report reads it: by whom (the App's slug), its name, and how it ended."""

    name: str
    status: str  # queued, in_progress, completed (and GitHub's waiting, requested, pending)
    conclusion: str  # "" until completed
    app: str


class CommitChecksAPI(PortBase):
    async def commit_check_runs(self, repo: str, sha: str) -> list[CheckRun]:
        """`GET commits/{ref}/check-runs`: every check run on a commit (the latest of each name, GitHub's
        default), all pages."""
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
