"""Reviews, their line comments and threads."""

from __future__ import annotations

from typing import Any

from reviewbot.app.port.base import PortBase, _q
from reviewbot.app.threads import ReviewThread, resolve_thread, review_threads


class ReviewsAPI(PortBase):
    """Reviews, review comments and replies, and review threads (GraphQL)."""

    async def create_review(self, repo: str, number: int, body: dict[str, Any]) -> int:
        """Post one review; after an ambiguous failure (5xx) it looks for the review before posting again."""
        async def posted() -> dict[str, Any] | None:
            return next((r for r in await self.list_reviews(repo, number)
                         if r.get("commit_id") == body.get("commit_id") and r.get("body") == body.get("body")), None)

        data = await self._send("POST", f"POST review {repo}#{number}",
                                f"/repos/{_q(repo)}/pulls/{int(number)}/reviews", body, recover=posted)
        return int(data["id"])

    async def reply_to_review_comment(self, repo: str, number: int, comment_id: int, body: str) -> None:
        await self._send("POST", f"POST reply {comment_id}",
                         f"/repos/{_q(repo)}/pulls/{int(number)}/comments/{int(comment_id)}/replies", {"body": body})

    async def list_reviews(self, repo: str, number: int) -> list[dict[str, Any]]:
        return await self._pages(f"GET reviews {repo}#{number}", f"/repos/{_q(repo)}/pulls/{int(number)}/reviews")

    async def list_review_comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        return await self._pages(f"GET review comments {repo}#{number}",
                                 f"/repos/{_q(repo)}/pulls/{int(number)}/comments")

    async def review_comment_reactions(self, repo: str, comment_id: int) -> list[tuple[str, str]]:
        """Each reaction (`+1`, `-1`, `heart`…) on a review comment, with the login of who gave it."""
        found = await self._pages(f"GET reactions {comment_id}",
                                  f"/repos/{_q(repo)}/pulls/comments/{int(comment_id)}/reactions")
        return [(str(r.get("content") or ""), str((r.get("user") or {}).get("login") or "")) for r in found]

    async def review_threads(self, repo: str, number: int) -> list[ReviewThread]:
        """Every review thread of the PR with its resolved/outdated state (GraphQL)."""
        return await review_threads(self._http, repo, number)

    async def resolve_thread(self, thread_id: str) -> bool:
        """Resolve a review thread by its node id (GraphQL `resolveReviewThread`)."""
        return await resolve_thread(self._http, thread_id)
