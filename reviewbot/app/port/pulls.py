"""Pull requests: their metadata, diffs, files and the commits they compare."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any, Literal

from reviewbot.app.port.base import DIFF_MEDIA_TYPE, PortBase, _q

# "unknown" when GitHub's two fields are missing or disagree: each caller then takes the answer that reveals less.
Visibility = Literal["public", "private", "internal", "unknown"]


def visibility_of(repo: object) -> Visibility:
    """A repository's visibility from its JSON: `visibility` (public, private, internal) checked against `private`
    (all an older GitHub Enterprise sends); public only when nothing says otherwise."""
    if not isinstance(repo, dict):
        return "unknown"
    private, named = repo.get("private"), repo.get("visibility")
    if named in ("private", "internal") and private is not False:
        return "private" if named == "private" else "internal"
    if private is True and named is None:
        return "private"
    if private is False and named in (None, "public"):
        return "public"
    return "unknown"


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
    visibility: Visibility = "unknown"  # of the base repository: who can read the pull request
    head_repo: str = ""  # owner/name of the head's repository ("" when a fork was deleted)
    base_repo: str = ""

    @property
    def same_repository(self) -> bool:
        """The head branch is in the base repository (not a fork): the App may push to it."""
        return bool(self.head_repo) and self.head_repo.lower() == self.base_repo.lower()


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
                        visibility=visibility_of((data.get("base") or {}).get("repo")),
                        head_repo=_full_name((data.get("head") or {}).get("repo")),
                        base_repo=_full_name((data.get("base") or {}).get("repo")))

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


def _full_name(repo: object) -> str:
    return str(repo.get("full_name") or "") if isinstance(repo, dict) else ""
