"""Issues themselves (not their comments) for the port: create, read, edit, and list the ones the App opened."""

from __future__ import annotations

from typing import Any

from reviewbot.app.port.base import PortBase, _q

MAX_LISTED_ISSUES = 500  # the App's own issues are few; bounded so a busy repository cannot make this expensive


class RepoIssues(PortBase):
    """The issue operations of GitHubPort (a mixin over PortBase)."""

    async def create_issue(self, repo: str, title: str, body: str) -> int:
        """`POST /repos/{owner}/{repo}/issues`: the new issue's number. Not retried after an ambiguous failure
        (the caller looks for the issue by its marker before creating one again)."""
        _, data = await self._http.request("POST", f"/repos/{_q(repo)}/issues", what=f"POST issue {repo}",
                                           body={"title": title, "body": body})
        return int(data["number"])

    async def issue_data(self, repo: str, number: int) -> dict[str, Any]:
        """An issue as GitHub returns it (the tracking issue); linked_issues.get_issue reads what a review needs."""
        _, data = await self._http.request("GET", f"/repos/{_q(repo)}/issues/{int(number)}",
                                           what=f"GET issue {repo}#{number}")
        return dict(data)

    async def update_issue(self, repo: str, number: int, *, title: str | None = None, body: str | None = None,
                           state: str | None = None) -> None:
        """`PATCH /repos/{owner}/{repo}/issues/{number}` with only the fields given."""
        fields = {k: v for k, v in (("title", title), ("body", body), ("state", state)) if v is not None}
        await self._http.request("PATCH", f"/repos/{_q(repo)}/issues/{int(number)}",
                                 what=f"PATCH issue {repo}#{number}", body=fields)

    async def issues_by(self, repo: str, creator: str, state: str = "all") -> list[dict[str, Any]]:
        """Issues (not pull requests) opened by `creator` (any author when empty), newest first, at most
        MAX_LISTED_ISSUES."""
        found: list[dict[str, Any]] = []
        params = {"state": state, "sort": "created", "direction": "desc"} | ({"creator": creator} if creator else {})
        async for page in self._http.pages(f"/repos/{_q(repo)}/issues", what=f"GET issues {repo}",
                                           params=params):
            found += [i for i in page if isinstance(i, dict) and "pull_request" not in i]
            if len(found) >= MAX_LISTED_ISSUES:
                break
        return found[:MAX_LISTED_ISSUES]

