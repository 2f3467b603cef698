"""A pull request's audit on a public repository: which findings lie on lines the pull request adds or changes,
the only ones its public thread may describe (the rest are counted)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from reviewbot.app.bigdiff import load_diff
from reviewbot.audit.disclosure import finding_key, in_changed_lines, is_public
from reviewbot.errors import GitHubError
from reviewbot.jobs.audit.audit_target import pull_number
from reviewbot.review.diff.newtext import changed_lines
from reviewbot.review.diff.parse import parse_diff

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.audit.service_record import AuditRecord, FindingJson

log = logging.getLogger(__name__)


def changed_by(diff: str) -> dict[str, frozenset[int]]:
    """Each file's added lines, new side (a changed line is a removed and an added one)."""
    return {f.path: frozenset(changed_lines(f)[0]) for f in parse_diff(diff).files if not f.binary}


def described(findings: list[FindingJson], changed: dict[str, frozenset[int]]) -> list[str]:
    """The places (`finding_key`) of the findings on changed lines."""
    found = []
    for f in findings:
        end = int(f["line"])
        start = int(f.get("start_line") or end)
        if in_changed_lines(str(f["path"]), min(start, end), end, changed):
            found.append(finding_key(str(f["path"]), end))
    return found


async def in_diff(port: GitHubPort, record: AuditRecord) -> list[str]:
    """`AuditRecord.in_diff` of a public repository's pull-request audit (else empty: nothing is withheld, or a
    branch's audit describes nothing in public)."""
    number = pull_number(record.branch)
    if number is None or not is_public(record.visibility) or not record.findings:
        return []
    try:
        pull = await port.get_pull(record.repo, number)
        if pull.head_sha == record.sha:
            diff, _ = await load_diff(port, record.repo, number, pull.base_sha, record.sha)
        else:  # pushed to since: the audited commit's own changes (three-dot, from the merge base)
            diff = await port.compare_diff(record.repo, pull.base_sha, record.sha)
    except GitHubError as exc:  # closed, deleted or unreadable: then nothing is described, everything counted
        log.warning("pull request's changed lines unknown", extra={"repo": record.repo, "error": str(exc)})
        return []
    return described(record.findings, await asyncio.to_thread(changed_by, diff))
