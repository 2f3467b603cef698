"""The findings a fix is for: a thread's, or every open verified one, most severe first, less those fixed already."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from reviewbot.fixes.target import FixTarget, by_severity, from_comment
from reviewbot.state import keys

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.queue.request import FixArgs


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


async def undone(redis: Any, args: FixArgs, targets: list[FixTarget]
                 ) -> tuple[list[FixTarget], dict[str, Any] | None]:
    """The targets not fixed on this head yet, and one earlier outcome of those that were."""
    left, earlier = [], None
    for target in targets:
        if (said := await redis.get(keys.fix_done_key(args.repo, args.number, args.head_sha, target.fingerprint))):
            earlier = json.loads(said)
        else:
            left.append(target)
    return left, earlier
