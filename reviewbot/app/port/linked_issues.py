"""Linked issues: an issue's text, a pull request's commits, closingIssuesReferences."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from reviewbot.app.port.base import PortBase, _q
from reviewbot.errors import GitHubError

log = logging.getLogger(__name__)
MAX_COMMITS = 250  # GitHub lists at most 250 commits of a pull request
MAX_CLOSING = 25

CLOSING_QUERY = """
query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      closingIssuesReferences(first: 25) {
        nodes { number repository { nameWithOwner } }
      }
    }
  }
}"""


@dataclass(frozen=True)
class IssueText:
    """An issue as read, or why it could not be read (`status` is GitHub's HTTP status then)."""

    title: str = ""
    body: str = ""
    state: str = ""
    is_pull: bool = False
    status: int = 200


class LinkedIssuesAPI(PortBase):
    """What a pull request is for: the issues it links, the messages of its commits."""

    async def get_issue(self, repo: str, number: int) -> IssueText:
        """One issue's title and body. 404 and 403 (a repository the installation cannot read, or no such issue)
        are answers, not errors: the issue is then listed as not read."""
        try:
            data = await self._get(f"GET issue {repo}#{number}", f"/repos/{_q(repo)}/issues/{int(number)}")
        except GitHubError as exc:
            if exc.status in (403, 404, 410):  # 410: issues are turned off in that repository
                return IssueText(status=exc.status)
            raise
        return IssueText(title=str(data.get("title") or ""), body=str(data.get("body") or ""),
                         state=str(data.get("state") or ""), is_pull=bool(data.get("pull_request")))

    async def pull_commit_messages(self, repo: str, number: int) -> list[str]:
        """The messages of the pull request's commits, oldest first (GitHub lists up to 250)."""
        commits = await self._pages(f"GET commits {repo}#{number}",
                                    f"/repos/{_q(repo)}/pulls/{int(number)}/commits", MAX_COMMITS)
        return [str((c.get("commit") or {}).get("message") or "") for c in commits]

    async def closing_issues(self, repo: str, number: int) -> list[tuple[str, int]]:
        """(owner/name, number) of the issues GitHub will close with this pull request: closing keywords in its
        description and issues linked by hand. An error answer (an old GitHub Enterprise) means none known."""
        owner, _, name = repo.partition("/")
        try:
            data = await self._http.graphql(CLOSING_QUERY, {"owner": owner, "name": name, "number": int(number)},
                                            what=f"closing issues {repo}#{number}")
        except GitHubError as exc:
            log.warning("closing issue references unavailable", extra={"repo": repo, "error": str(exc)})
            return []
        pull = (data.get("repository") or {}).get("pullRequest") or {}
        nodes = (pull.get("closingIssuesReferences") or {}).get("nodes") or []
        return [(str((n.get("repository") or {}).get("nameWithOwner") or repo), int(n["number"]))
                for n in nodes[:MAX_CLOSING] if isinstance(n, dict) and isinstance(n.get("number"), int)]
