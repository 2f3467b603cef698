"""The findings a fix is for: one thread's, or every open verified finding of the pull request, most severe first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reviewbot.fixes.target import FixTarget, by_severity, from_comment

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort


def thread_target(comments: list[dict[str, Any]], root_id: int, key: bytes) -> FixTarget | None:
    """The finding of the thread whose first comment is `root_id`, from its authenticated marker."""
    root = next((c for c in comments if c.get("id") == root_id), None)
    return from_comment(root, key) if root is not None else None


async def open_targets(port: GitHubPort, repo: str, number: int, key: bytes, limit: int) -> list[FixTarget]:
    """reviewbot's unresolved, not outdated threads on the pull request (a re-review resolves the threads of what
    it no longer finds, so these are the latest review's open findings), verified ones only, at most `limit`."""
    threads = await port.review_threads(repo, number)
    open_roots = {t["comments"][0]["database_id"] for t in threads
                  if t["comments"] and not t["is_resolved"] and not t["is_outdated"]}
    found: dict[str, FixTarget] = {}
    for comment in await port.list_review_comments(repo, number):
        if comment.get("id") in open_roots and (target := from_comment(comment, key)) is not None:
            found.setdefault(target.fingerprint, target)
    return by_severity(list(found.values()), limit)
