"""The answer to the comment that asked for an audit, edited as chunks finish (at most every few seconds) and once
more with the result."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from reviewbot.audit.service_record import AuditRecord
from reviewbot.audit.service_state import AuditStore
from reviewbot.errors import GitHubError, RetryableError
from reviewbot.jobs.audit.audit_text import progress_text, result_text
from reviewbot.state.audit_keys import edited_key

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort

log = logging.getLogger(__name__)
EVERY_S = 5  # GitHub spaces writes; one edit per few seconds keeps an audit of hundreds of chunks cheap


async def edit_answer(port: GitHubPort, record: AuditRecord, *, final: bool = False,
                      progress: tuple[int, int, float] | None = None) -> None:
    """Progress (chunks done, not audited, dollars spent) or, `final`, the result; a failed edit is logged only:
    the audit's record stays the source of truth."""
    comment_id, repo = record.comment_id, record.repo
    if not comment_id:
        return
    body = result_text(record) if final or progress is None else progress_text(record, *progress)
    try:
        await port.update_issue_comment(repo, int(comment_id), body)
    except (GitHubError, RetryableError) as exc:
        log.warning("audit answer not edited", extra={"repo": repo, "error": str(exc)})


async def maybe_progress(port: GitHubPort, redis: Any, record: AuditRecord) -> None:
    """Edit the answer with the progress so far, unless another chunk did within EVERY_S seconds."""
    if not record.comment_id:
        return
    if not await redis.set(edited_key(record.id), "1", nx=True, ex=EVERY_S):
        return
    store = AuditStore(redis)
    done, failed = await store.results(record.id)
    if len(done) + len(failed) >= len(record.chunks):
        return  # the finish writes the result
    spent = sum(float(d.usage.cost_usd) for d in done.values())
    await edit_answer(port, record, progress=(len(done), len(failed), spent))
