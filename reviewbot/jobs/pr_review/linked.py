"""The issues a pull request closes or references, read through the installation (only what it can read)."""

from __future__ import annotations

import asyncio
import logging
import urllib.parse
from typing import TYPE_CHECKING

from reviewbot.errors import GitHubError
from reviewbot.review.linked.issuetext import MAX_ISSUES, LinkedIssue
from reviewbot.review.linked.refs import Mention, find_refs, wanted

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort, PullInfo
    from reviewbot.app.port.linked_issues import IssueText

log = logging.getLogger(__name__)


async def linked_issues(port: GitHubPort, repo: str, pull: PullInfo) -> tuple[LinkedIssue, ...]:
    """References in the description and the commit messages, and GitHub's closingIssuesReferences; the first
    few read, closing ones first. An issue the installation cannot read is listed as not read, never guessed."""
    messages, closing = await asyncio.gather(_messages(port, repo, pull.number),
                                             port.closing_issues(repo, pull.number))
    host = urllib.parse.urlsplit(pull.html_url).hostname or "github.com"
    refs = wanted(find_refs([pull.body, *messages], repo, (host,)), closing, repo, pull.number)
    read = await asyncio.gather(*(port.get_issue(m.ref.repo, m.ref.number) for m in refs[:MAX_ISSUES]))
    issues = [_issue(m, text) for m, text in zip(refs, read, strict=False)]
    issues += [LinkedIssue(m.ref, m.closing, why_not=f"over the limit of {MAX_ISSUES} linked issues")
               for m in refs[MAX_ISSUES:]]
    return tuple(issues)


async def _messages(port: GitHubPort, repo: str, number: int) -> list[str]:
    try:
        return await port.pull_commit_messages(repo, number)
    except GitHubError as exc:  # permanent: review without them rather than not at all
        log.warning("pull request commits unavailable", extra={"repo": repo, "error": str(exc)})
        return []


def _issue(mention: Mention, text: IssueText) -> LinkedIssue:
    if text.status != 200:
        return LinkedIssue(mention.ref, mention.closing,
                           why_not=f"the installation cannot read it: HTTP {text.status}")
    if text.is_pull:
        return LinkedIssue(mention.ref, mention.closing, why_not="a pull request, not an issue")
    return LinkedIssue(mention.ref, mention.closing, text.title, text.body, text.state)
