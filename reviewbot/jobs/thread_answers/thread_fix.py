"""`@app fix` in one of reviewbot's review threads: the fix job for that one finding, on the pull request's head."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reviewbot.jobs.fix.fix_enqueue import FixArgs, enqueue_fix, may_fix
from reviewbot.jobs.fix.fix_targets import thread_target

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps

NOT_FIXABLE = ("This thread holds no finding of reviewbot's that can be fixed: `fix` works in reviewbot's own review "
               "threads, on verified findings that still point at a line of the pull request's head.")


async def thread_fix(deps: Deps, port: GitHubPort, redis: Any, installation_id: int, repo: str, number: int,
                     comment_id: int, root_id: int, author: str, trusted: bool) -> dict[str, Any]:
    """Permission (write access, or the pull request's author), then the finding from the thread's signed first
    comment; the job's id names the head and the finding, so asking twice stores one job."""
    pull = await port.get_pull(repo, number)
    if pull.state != "open":
        return {"outcome": "closed"}
    if not await may_fix(port, repo, author, pull.author, trusted=trusted):
        return {"outcome": "not allowed"}
    comments = await port.list_review_comments(repo, number)
    reply = next((c for c in comments if c.get("id") == comment_id), None)
    if reply is not None and int(reply.get("in_reply_to_id") or reply.get("id") or 0) != root_id:
        return {"outcome": "ignored", "reason": "the thread is gone"}
    target = thread_target(comments, root_id, deps.settings.marker_key())
    if target is None:
        await port.reply_to_review_comment(repo, number, root_id, NOT_FIXABLE)
        return {"outcome": "ignored", "reason": "no fixable finding in this thread"}
    stored = await enqueue_fix(redis, FixArgs(installation_id, repo, number, pull.head_sha, target.fingerprint,
                                              author, "thread", root_id))
    return {"outcome": stored, "sha": pull.head_sha, "finding": target.fingerprint}
