"""A repository itself (its default branch and visibility, for audits and for what a pull request may read), a
branch's head commit, the installation's repositories (for scheduled audits), and edits of an audit's answer."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

from reviewbot.app.port.base import MAX_LISTED, PortBase, _q
from reviewbot.app.port.pulls import Visibility, visibility_of
from reviewbot.errors import GitHubError


@dataclass(frozen=True)
class RepoInfo:
    """What an audit reads of the repository: its default branch, and who may read it (`visibility`)."""

    default_branch: str
    visibility: Visibility  # as GitHub says; unknown counts as public wherever something could be disclosed


@dataclass(frozen=True)
class InstalledRepo:
    """One repository of the installation's list: its default branch, and when anything was last pushed to it
    (GitHub's `pushed_at`, any branch; "" when GitHub gives none), which says whether its files may have changed."""

    full_name: str
    default_branch: str
    pushed_at: str


class AuditsAPI(PortBase):
    async def default_branch(self, repo: str) -> str:
        return (await self.repository(repo)).default_branch

    async def repository(self, repo: str) -> RepoInfo:
        """`GET /repos/{owner}/{repo}`: the default branch and the visibility."""
        data = await self._get(f"GET repo {repo}", f"/repos/{_q(repo)}")
        return RepoInfo(default_branch=str(data.get("default_branch") or "main"), visibility=visibility_of(data))

    async def repo_visibility(self, repo: str) -> Visibility:
        """Whether `repo` is public, asked before reading any of its issues. 404 (no such repository, or one the
        installation may not see) and 403 are "unknown": not public."""
        try:
            return (await self.repository(repo)).visibility
        except GitHubError as exc:
            if exc.status in (403, 404):
                return "unknown"
            raise

    async def branch_head(self, repo: str, branch: str) -> str:
        """The commit a branch (or any ref) points at now."""
        data = await self._get(f"GET commit {repo}@{branch[:40]}",
                               f"/repos/{_q(repo)}/commits/{urllib.parse.quote(branch, safe='')}")
        return str(data["sha"])

    async def update_issue_comment(self, repo: str, comment_id: int, body: str) -> None:
        await self._send("PATCH", f"PATCH comment {comment_id}",
                         f"/repos/{_q(repo)}/issues/comments/{int(comment_id)}", {"body": body}, idempotent=True)

    async def installation_repos(self) -> list[InstalledRepo]:
        """Every repository the installation may read (100 a request)."""
        found: list[InstalledRepo] = []
        page = 1
        while True:
            data = await self._get("GET installation repositories", "/installation/repositories",
                                   params={"per_page": 100, "page": page})
            repos = [r for r in data.get("repositories") or [] if isinstance(r, dict)]
            found += [InstalledRepo(str(r["full_name"]), str(r.get("default_branch") or "main"),
                                    str(r.get("pushed_at") or "")) for r in repos]
            if len(repos) < 100 or len(found) >= int(data.get("total_count") or 0) or len(found) >= MAX_LISTED:
                return found
            page += 1
