"""The per-folder code-scanning categories of earlier versions, closed once per branch: a folder's audit used to
upload to a category of its own (`reviewbot/audit/<branch>/<hash of the paths>/`), so its findings were second
alerts beside the branch's. Now that every audit of a branch uploads to the branch's one category, an empty
analysis of each old category (GitHub closes what an analysis no longer reports) leaves one alert per finding."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from reviewbot.audit.publish import branch_ref
from reviewbot.audit.sarif import build_sarif, encode_sarif
from reviewbot.audit.service_record import AuditRecord
from reviewbot.audit.service_state import KEEP_AUDITS, AuditStore
from reviewbot.errors import GitHubError, PermanentError, RetryableError

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort

log = logging.getLogger(__name__)


def old_categories(record: AuditRecord, earlier: list[AuditRecord]) -> list[str]:
    """The categories other than this audit's that earlier audits of the same branch uploaded to."""
    mine = f"reviewbot/audit/{record.branch}/"
    return sorted({r.category for r in earlier if r.repo == record.repo and r.branch == record.branch
                   and r.category.startswith(mine) and r.category != record.category})


async def retire_categories(port: GitHubPort, store: AuditStore, record: AuditRecord) -> list[str]:
    """After a branch audit's upload: once per branch, an empty analysis for each old folder category (from the
    audits Redis still lists); a failure is logged and left to the branch's next audit."""
    if await store.categories_retired(record.repo, record.branch):
        return []
    earlier = [listed.record for listed in await store.recent(KEEP_AUDITS)]
    retired: list[str] = []
    for category in old_categories(record, earlier):
        empty = build_sarif([], category=category, commit_sha=record.sha)
        try:
            await port.upload_sarif(record.repo, record.sha, branch_ref(record.branch), encode_sarif(empty.document))
        except (GitHubError, RetryableError, PermanentError) as exc:
            log.warning("an old code-scanning category was not closed", extra={"repo": record.repo,
                                                                             "error": str(exc)})
            return retired
        retired.append(category)
    await store.retire_categories(record.repo, record.branch)
    if retired:
        log.info("old code-scanning categories closed", extra={"repo": record.repo, "categories": len(retired)})
    return retired
