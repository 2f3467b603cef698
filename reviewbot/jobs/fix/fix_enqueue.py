"""Who may ask for a fix, and the fix job stored once per (pull request, head, finding or "all")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reviewbot.jobs.commands.refusal import MAY_SPEND
from reviewbot.queue import functions
from reviewbot.queue.enqueue import Stored, store_job
from reviewbot.queue.request import ALL, FixArgs, Origin

__all__ = ["ALL", "FixArgs", "Origin", "enqueue_fix", "may_fix"]

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort


async def enqueue_fix(redis: Any, args: FixArgs, *, delivery: str = "", defer_s: float = 0.0) -> Stored:
    """Stored unless the same fix is queued or running (then nothing is stored: a second click costs nothing)."""
    return await store_job(redis, functions.FIX_FUNCTION, args.job_args(), {}, args.job_id, delivery=delivery,
                           defer_s=defer_s)


async def may_fix(port: GitHubPort, repo: str, author: str, pull_author: str, *, trusted: bool = False) -> bool:
    """The commands' rule (write access), and the pull request's author may fix their own pull request."""
    if trusted or author.lower() == pull_author.lower():
        return True
    return await port.permission(repo, author) in MAY_SPEND
