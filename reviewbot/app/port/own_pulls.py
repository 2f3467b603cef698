"""Pull requests reviewbot opens itself (a fix's, a rule proposal's): a commit on a new branch, the ones from a head
branch in any state, and a new one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reviewbot.app.port.base import _q
from reviewbot.app.port.gitdata import GitDataAPI


@dataclass(frozen=True)
class OpenedPull:
    """A pull request the App opened or found by its head branch: `open` or `closed`, and whether it was merged."""

    number: int
    state: str
    merged: bool
    html_url: str = ""
    head_sha: str = ""


def _opened(data: Mapping[str, Any]) -> OpenedPull:
    head = data.get("head") if isinstance(data.get("head"), dict) else {}
    return OpenedPull(int(data["number"]), str(data.get("state") or "open"), bool(data.get("merged_at")),
                      str(data.get("html_url") or ""), str((head or {}).get("sha") or ""))


class OwnPullsAPI(GitDataAPI):
    async def commit_to_new_branch(self, repo: str, branch: str, parent: str, files: Mapping[str, str],
                                   message: str) -> str:
        """One commit on `parent` with `files` changed, and a new branch `branch` at it (422 if it exists)."""
        sha = await self.make_commit(repo, parent, files, message)
        await self.create_branch(repo, branch, sha)
        return sha

    async def pulls_from(self, repo: str, branch: str) -> list[OpenedPull]:
        """`GET pulls?head=OWNER:BRANCH&state=all`: every pull request ever opened from `branch` of `repo`."""
        found: list[dict[str, Any]] = []
        params = {"state": "all", "head": f"{repo.split('/', 1)[0]}:{branch}"}
        async for page in self._http.pages(f"/repos/{_q(repo)}/pulls", what=f"GET pulls from {branch}",
                                           params=params):
            found += page
        return [_opened(p) for p in found]

    async def create_pull(self, repo: str, *, head: str, base: str, title: str, body: str) -> OpenedPull:
        """`POST pulls`: a pull request from branch `head` of this repository into `base`."""
        data = await self._send("POST", f"POST pull from {head}", f"/repos/{_q(repo)}/pulls",
                                {"head": head, "base": base, "title": title, "body": body,
                                 "maintainer_can_modify": True})
        return _opened(data)
