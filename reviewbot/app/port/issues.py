"""Issue comments, reactions and a person's permission on the repository."""

from __future__ import annotations

from typing import Any

from reviewbot.app.port.base import PortBase, _q, _q1
from reviewbot.errors import GitHubError


class IssuesAPI(PortBase):
    """Comments on the conversation of an issue or pull request, reactions, permissions."""

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
