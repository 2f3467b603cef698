"""An audit job that ends unexpectedly: the branch's lock released and the answer told, the exception left to arq."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING

from arq import Retry
from redis.exceptions import RedisError

from reviewbot.errors import GitHubError, LeaseLost, RetryableError
from reviewbot.review.publish.markdown import neutralize_inline

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.audit.service_state import AuditStore

log = logging.getLogger(__name__)
Tell = Callable[[str], Awaitable[object]]  # writes the short reason where the person who asked reads it


def short_reason(exc: BaseException) -> str:
    """The exception's class only: its message may quote code, paths or tokens, and the answer may be public."""
    return f"an unexpected error ({type(exc).__name__}); the worker's log has the details"


@contextlib.asynccontextmanager
async def released_on_failure(store: AuditStore, repo: str, branch: str, audit_id: str,
                              tell: Tell | None) -> AsyncIterator[None]:
    """Around the work of a job that holds the branch's lock. Retry keeps it (arq runs this job again) and so
    does LeaseLost (another worker runs it now); anything else releases it, since a lock outliving its job makes
    every later audit of the branch answer "already running" until the lock's TTL. An Exception is also told in
    the answer; a cancellation is not (arq runs a cancelled job again). The exception is always re-raised, so
    arq and the job's ledger still record it."""
    try:
        yield
    except (Retry, LeaseLost):
        raise
    except BaseException as exc:
        await _cleanup(store, repo, branch, audit_id, None if isinstance(exc, asyncio.CancelledError) else tell,
                       exc)
        raise


async def _cleanup(store: AuditStore, repo: str, branch: str, audit_id: str, tell: Tell | None,
                   exc: BaseException) -> None:
    """Best effort: a failure here is logged, never raised over the exception that ended the job."""
    log.warning("audit job ended unexpectedly: lock released", extra={"repo": repo, "audit": audit_id,
                                                                       "error": type(exc).__name__})
    try:
        await store.unlock(repo, branch, audit_id)
    except RedisError as err:  # the lock then lapses by its TTL: nothing better can be done without Redis
        log.warning("audit lock not released", extra={"repo": repo, "audit": audit_id, "error": str(err)})
    if tell is None:
        return
    try:
        await tell(short_reason(exc))
    except (GitHubError, RetryableError) as err:
        log.warning("audit answer not written", extra={"repo": repo, "audit": audit_id, "error": str(err)})


def comment_teller(port: GitHubPort, repo: str, number: int | None, prefix: str) -> Tell | None:
    """A new comment on the issue or pull request that asked (the planning job has no answer yet)."""
    if number is None:
        return None

    async def tell(why: str) -> None:
        await port.create_issue_comment(repo, number, f"{prefix} {neutralize_inline(why)}")
    return tell


def answer_teller(port: GitHubPort, repo: str, comment_id: int | None, prefix: str) -> Tell | None:
    """The answer comment edited (the finishing job's audit has one when it was asked for in a comment)."""
    if not comment_id:
        return None

    async def tell(why: str) -> None:
        await port.update_issue_comment(repo, comment_id, f"{prefix} {neutralize_inline(why)}")
    return tell
