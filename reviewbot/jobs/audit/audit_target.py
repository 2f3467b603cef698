"""What an audit reads and where GitHub shows it: a branch (its head, uploaded for `refs/heads/<branch>`), or a pull
request asked from one of its comments (its head commit, uploaded for `refs/pull/N/head` so that the alerts appear
in the pull request's checks, compared by GitHub with the default branch's analysis of the same category)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.audit.service_record import AuditRecord

_PULL_REF = re.compile(r"refs/pull/([1-9][0-9]{0,9})/head")  # only ever one we wrote: pull_ref()


def pull_ref(number: int) -> str:
    """The audit's "branch" for a pull request: its lock, its record and the upload's `ref`."""
    return f"refs/pull/{int(number)}/head"


def pull_number(branch: str) -> int | None:
    match = _PULL_REF.fullmatch(branch)
    return int(match.group(1)) if match else None


async def head_of(port: GitHubPort, repo: str, branch: str) -> str:
    """The commit to audit: the pull request's head, or the branch's."""
    number = pull_number(branch)
    return (await port.get_pull(repo, number)).head_sha if number else await port.branch_head(repo, branch)


def category_branch(record: AuditRecord) -> str:
    """The branch whose code scanning category the upload uses: a pull request's audit shares the default
    branch's, which is what GitHub compares a pull request's alerts with."""
    return record.base_branch or record.branch


def keeps_baseline(record: AuditRecord) -> bool:
    """Only a branch's audit is what the branch's next incremental audit starts from (a pull request is not merged
    code: its findings must not be carried into the default branch's)."""
    return pull_number(record.branch) is None
