"""Pull requests reviewbot opens itself (rule proposals): the ones from a head branch, in any state, and a new one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reviewbot.app.port.base import PortBase, _q


@dataclass(frozen=True)
class OpenedPull:
    """A pull request found by its head branch: its number, `open` or `closed`, and whether it was merged."""

    number: int
    state: str
    merged: bool
    html_url: str = ""


class ProposalsAPI(PortBase):
    async def pulls_from(self, repo: str, branch: str) -> list[OpenedPull]:
        """`GET pulls?head=OWNER:BRANCH&state=all`: every pull request ever opened from `branch` of `repo`."""
        found: list[dict[str, Any]] = []
        params = {"state": "all", "head": f"{repo.split('/', 1)[0]}:{branch}"}
        async for page in self._http.pages(f"/repos/{_q(repo)}/pulls", what=f"GET pulls from {branch}",
                                           params=params):
            found += page
        return [OpenedPull(int(p["number"]), str(p.get("state") or ""), bool(p.get("merged_at")),
                           str(p.get("html_url") or "")) for p in found]

    async def create_pull(self, repo: str, *, head: str, base: str, title: str, body: str) -> OpenedPull:
        """`POST pulls`: a pull request from branch `head` into `base`."""
        data = await self._send("POST", f"POST pull from {head}", f"/repos/{_q(repo)}/pulls",
                                {"head": head, "base": base, "title": title, "body": body,
                                 "maintainer_can_modify": True})
        return OpenedPull(int(data["number"]), str(data.get("state") or "open"), False, str(data.get("html_url") or ""))
