"""The issues a pull request closes or references, read only where everyone who can read the pull request can."""

from __future__ import annotations

import asyncio
import logging
import urllib.parse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from reviewbot.errors import GitHubError
from reviewbot.review.linked.issuetext import MAX_ISSUES, LinkedIssue
from reviewbot.review.linked.readable import UNREADABLE, decide
from reviewbot.review.linked.refs import Mention, find_refs, wanted

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort, PullInfo
    from reviewbot.app.port.linked_issues import IssueText

log = logging.getLogger(__name__)


async def linked_issues(port: GitHubPort, repo: str, pull: PullInfo,
                        readable: Sequence[str]) -> tuple[LinkedIssue, ...]:
    """References in the description and the commit messages, and GitHub's closingIssuesReferences; the first
    few read, closing ones first. What the review reads it may repeat in public, so an issue is read only when
    everyone who can read the pull request can read it too: one of the pull request's repository, of a public
    repository, or, for a private or internal pull request, of a repository in the organisation's `readable`
    list. Every other issue is listed as not read, in one wording whatever the reason."""
    messages, closing = await asyncio.gather(_messages(port, repo, pull.number),
                                             port.closing_issues(repo, pull.number))
    host = urllib.parse.urlsplit(pull.html_url).hostname or "github.com"
    refs = wanted(find_refs([pull.body, *messages], repo, (host,)), closing, repo, pull.number)
    first = refs[:MAX_ISSUES]
    # Unknown visibility counts as public: the allow-list never opens a pull request that may be public.
    pr_public = pull.visibility not in ("private", "internal")
    ruled = [decide(repo, m.ref.repo, pr_public=pr_public, readable=readable) for m in first]
    ask = sorted({m.ref.repo.lower() for m, rule in zip(first, ruled, strict=True) if rule == "read if public"})
    seen = dict(zip(ask, await asyncio.gather(*(port.repo_visibility(r) for r in ask)), strict=True))
    allowed = [rule == "read" or seen[m.ref.repo.lower()] == "public" for m, rule in zip(first, ruled, strict=True)]
    issues = list(await asyncio.gather(*(_read(port, m, ok) for m, ok in zip(first, allowed, strict=True))))
    issues += [LinkedIssue(m.ref, m.closing, why_not=f"over the limit of {MAX_ISSUES} linked issues")
               for m in refs[MAX_ISSUES:]]
    return tuple(issues)


async def _read(port: GitHubPort, mention: Mention, allowed: bool) -> LinkedIssue:
    if not allowed:  # not even requested: the rule said no before GitHub could say anything
        return LinkedIssue(mention.ref, mention.closing, why_not=UNREADABLE)
    return _issue(mention, await port.get_issue(mention.ref.repo, mention.ref.number))


async def _messages(port: GitHubPort, repo: str, number: int) -> list[str]:
    try:
        return await port.pull_commit_messages(repo, number)
    except GitHubError as exc:  # permanent: review without them rather than not at all
        log.warning("pull request commits unavailable", extra={"repo": repo, "error": str(exc)})
        return []


def _issue(mention: Mention, text: IssueText) -> LinkedIssue:
    if text.status != 200:  # the status is never shown: a 404 here must read like a private repository
        return LinkedIssue(mention.ref, mention.closing, why_not=UNREADABLE)
    if text.is_pull:
        return LinkedIssue(mention.ref, mention.closing, why_not="a pull request, not an issue")
    return LinkedIssue(mention.ref, mention.closing, text.title, text.body, text.state)
