"""A checked audit fix delivered: as a pull request (one commit on the audited commit, on a new `reviewbot/fix/…`
branch, against the audited branch, its commit remembered for its CI report), or as a patch in the reply."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from reviewbot.audit.fix_select import FixGroup, pull_body, pull_title
from reviewbot.audit.service_record import AuditRecord
from reviewbot.errors import GitHubError
from reviewbot.fixes.render import commit_message, declined_reply, patch_block, suggested_reply
from reviewbot.jobs.fix.ci_report import FixCommit, remember_fix_commit
from reviewbot.review.publish.markdown import code_span, neutralize_inline
from reviewbot.state import keys

ALREADY_EXISTS = 422  # GitHub's answer to a branch that exists

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.fix.audit_fix_plan import AuditFixPlan


class MadeBefore(Exception):
    """A pull request was opened from the fix's branch already (by an earlier ask): never another."""


async def open_fix_pull(port: GitHubPort, redis: Any, record: AuditRecord, group: FixGroup, planned: AuditFixPlan,
                        asked_in: int, alert_numbers: dict[str, int], key: bytes) -> int:
    """The pull request's number. MadeBefore when one was opened from the branch; GitHubError as GitHub refused."""
    change = planned.change
    files = {p: change.after[p] for p in change.paths}
    message = commit_message(group.targets, planned.explanation, repo=record.repo, key=key)
    sha = await port.make_commit(record.repo, record.sha, files, message)
    try:
        await port.create_branch(record.repo, group.branch, sha)
    except GitHubError as exc:
        if exc.status != ALREADY_EXISTS:
            raise
        sha = await _reuse_branch(port, record, group, sha, files, message)
    tracking = record.publication.issue_number if record.publication is not None else None
    body = pull_body(group, planned.explanation, repo_url=record.repo_url or f"https://github.com/{record.repo}",
                     alert_numbers=alert_numbers, tracking_issue=tracking, asked_in=asked_in or None)
    opened = await port.create_pull(record.repo, head=group.branch, base=record.branch, title=pull_title(group),
                                    body=body)
    # Its CI is read when a check suite on the commit completes; told where the fix was asked, else on the pull.
    await remember_fix_commit(redis, sha, FixCommit(record.installation_id, record.repo, asked_in or opened.number,
                                                    opened.number))
    return opened.number


async def _reuse_branch(port: GitHubPort, record: AuditRecord, group: FixGroup, made: str, files: dict[str, str],
                        message: str) -> str:
    """The branch exists: left by a try that stopped before its pull request was opened (GitHub failed), unless a
    pull request came from it. Its head is reused when it holds the same files as this fix, else the fix goes on it."""
    if await port.pulls_from(record.repo, group.branch):
        raise MadeBefore(group.branch)
    head = await port.branch_head(record.repo, group.branch)
    if await port.commit_tree(record.repo, head) == await port.commit_tree(record.repo, made):
        return head
    return await port.commit_files(record.repo, group.branch, head, files, message)


async def deliver_audit_fix(fixes: str, port: GitHubPort, redis: Any, record: AuditRecord, group: FixGroup,
                            planned: AuditFixPlan, asked_in: int, alert_numbers: dict[str, int], once: str,
                            key: bytes) -> str:
    """A checked fix as a pull request (`fixes` push) or a patch in the reply (suggest); `once` remembers which."""
    if fixes != "push":
        await tell(port, record.repo, asked_in,
                   suggested_reply(group.targets, planned.explanation, patch_block(planned.change)))
        await redis.set(once, json.dumps({"outcome": "suggested"}), ex=keys.FIX_PR_TTL)
        return "suggested"
    try:
        number = await open_fix_pull(port, redis, record, group, planned, asked_in, alert_numbers, key)
    except MadeBefore:  # its pull request is there: never again
        await redis.set(once, json.dumps({"outcome": "made before"}), ex=keys.FIX_PR_TTL)
        await tell(port, record.repo, asked_in,
                   declined_reply(group.targets, f"a pull request from `{group.branch}` was opened already"))
        return "already"
    except GitHubError as exc:
        if exc.status not in (403, 404, 422):
            raise
        await redis.delete(once)  # not opened: once the App may write (or GitHub's objection is gone), asking makes it
        why = ("the App may not write to this repository (it needs `contents: write`)" if exc.status != 422
               else f"GitHub refused the pull request ({neutralize_inline(str(exc)[:200])})")
        await tell(port, record.repo, asked_in, declined_reply(group.targets, why))
        return "declined:not-granted" if exc.status != 422 else "declined:refused"
    await redis.set(once, json.dumps({"outcome": "opened", "pull": number}), ex=keys.FIX_PR_TTL)
    await tell(port, record.repo, asked_in,
               f"Opened #{number}: a checked fix for {named(group)}. Its CI result will be reported here.")
    return "pull-request"


def named(group: FixGroup) -> str:
    targets = group.targets
    if len(targets) == 1:
        return f"**{neutralize_inline(targets[0].title)}**"  # the model's words: no pings, no links
    return f"{len(targets)} findings in {code_span(targets[0].path)}"


async def tell(port: GitHubPort, repo: str, asked_in: int, text: str) -> None:
    """A reply where the fix was asked; autofix (no issue) says nothing there: its pull request is the news."""
    if asked_in:
        await port.create_issue_comment(repo, asked_in, text)
