"""A checked audit fix delivered as a pull request: one commit on the audited commit, on a new `reviewbot/fix/…`
branch, the pull request against the audited branch, and the commit remembered for its CI report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reviewbot.audit.fix_select import FixGroup, pull_body, pull_title
from reviewbot.audit.service_record import AuditRecord
from reviewbot.fixes.render import commit_message
from reviewbot.jobs.fix.ci_report import FixCommit, remember_fix_commit

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.fix.audit_fix_plan import AuditFixPlan


async def open_fix_pull(port: GitHubPort, redis: Any, record: AuditRecord, group: FixGroup, planned: AuditFixPlan,
                        asked_in: int, alert_numbers: dict[str, int]) -> int:
    """The pull request's number. GitHubError 422 when the branch exists (an earlier fix of the same findings)."""
    change = planned.change
    sha = await port.commit_to_new_branch(record.repo, group.branch, record.sha,
                                          {p: change.after[p] for p in change.paths},
                                          commit_message(group.targets, planned.explanation))
    tracking = record.publication.issue_number if record.publication is not None else None
    body = pull_body(group, planned.explanation, repo_url=record.repo_url or f"https://github.com/{record.repo}",
                     alert_numbers=alert_numbers, tracking_issue=tracking, asked_in=asked_in or None)
    opened = await port.create_pull(record.repo, head=group.branch, base=record.branch, title=pull_title(group),
                                    body=body)
    # Its CI is read when a check suite on the commit completes; told where the fix was asked, else on the pull.
    await remember_fix_commit(redis, sha, FixCommit(record.installation_id, record.repo, asked_in or opened.number,
                                                    opened.number))
    return opened.number
