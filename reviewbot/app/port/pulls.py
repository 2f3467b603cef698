"""Pull requests: their metadata, diffs, files and the commits they compare."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any

from reviewbot.app.port.audits import visibility_of
from reviewbot.app.port.base import DIFF_MEDIA_TYPE, PortBase, _q


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
    visibility: str = "private"  # the base repository's (visibility_of); public limits what a security review says


class PullsAPI(PortBase):
    """Pull requests, their diffs and files, and commits."""

    async def get_pull(self, repo: str, number: int) -> PullInfo:
        data = await self._get(f"GET pull {repo}#{number}", f"/repos/{_q(repo)}/pulls/{int(number)}")
        return PullInfo(number=int(data["number"]), title=str(data.get("title") or ""),
                        body=str(data.get("body") or ""), head_sha=data["head"]["sha"],
                        base_sha=data["base"]["sha"], head_ref=data["head"]["ref"],
                        base_ref=data["base"]["ref"], draft=bool(data.get("draft")),
                        author=str((data.get("user") or {}).get("login") or ""),
                        html_url=str(data.get("html_url") or ""), state=str(data.get("state") or "open"),
                        labels=tuple(str(lb.get("name")) for lb in data.get("labels") or [] if isinstance(lb, dict)),
                        changed_files=int(data.get("changed_files") or 0),
                        visibility=visibility_of((data.get("base") or {}).get("repo")))

    async def get_diff(self, repo: str, number: int) -> str:
        """The unified diff; GitHubError with status 406 when GitHub finds it too large (see bigdiff)."""
        data = await self._get(f"GET diff {repo}#{number}", f"/repos/{_q(repo)}/pulls/{int(number)}",
                               headers={"Accept": DIFF_MEDIA_TYPE})
        # PyGithub wraps a non-JSON body as {"data": text}; an empty diff comes back as None.
        return str(data.get("data") or "") if isinstance(data, dict) else ""

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

    async def list_files(self, repo: str, number: int) -> list[dict[str, Any]]:
        """The PR's files (GitHub caps the list at 3,000), each with `patch` unless GitHub omitted it."""
        return await self._pages(f"GET files {repo}#{number}", f"/repos/{_q(repo)}/pulls/{int(number)}/files")
