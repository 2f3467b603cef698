"""The tracking issue on GitHub: where a private or internal repository's code scanning is not available, the
App's one issue (found again by its signed marker and its author) is edited by every audit, or created once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from reviewbot.audit.findings import AuditFinding
from reviewbot.audit.tracking import TITLE, tracking_body, tracking_state
from reviewbot.errors import GitHubError


class IssuePort(Protocol):
    """What the tracking issue needs of GitHubPort (its issue mixin)."""

    async def create_issue(self, repo: str, title: str, body: str) -> int: ...

    async def issue_data(self, repo: str, number: int) -> dict[str, Any]: ...

    async def update_issue(self, repo: str, number: int, *, title: str | None = ..., body: str | None = ...,
                           state: str | None = ...) -> None: ...

    async def issues_by(self, repo: str, creator: str, state: str = ...) -> list[dict[str, Any]]:
        """Issues opened by `creator` (every issue when it is empty), newest first."""


async def update_tracking_issue(port: IssuePort, repo: str, findings: Sequence[AuditFinding], *, category: str,
                                commit_sha: str, bot_login: str, key: bytes, cost_usd: float,
                                reason: str, known: int | None = None) -> tuple[int, int]:
    """Edit the App's tracking issue (`known`, else the newest of the App's issues carrying a valid signed
    marker), or create it once. A closed issue is reopened when this audit found something new. Returns (issue
    number, new findings)."""
    ours = None
    candidates = await _known(port, repo, known)
    for issue in candidates or await _listed(port, repo, bot_login):
        if (remembered := tracking_state(issue, key)) is not None:
            ours = (issue, remembered)
            break
    if ours is None and candidates:  # the remembered number is not (or no longer) ours: look for it
        return await update_tracking_issue(port, repo, findings, category=category, commit_sha=commit_sha,
                                           bot_login=bot_login, key=key, cost_usd=cost_usd, reason=reason)
    body, new = tracking_body(findings, category=category, commit_sha=commit_sha, cost_usd=cost_usd,
                              reason=reason, remembered=ours[1] if ours else None, key=key)
    if ours is None:
        return await port.create_issue(repo, TITLE, body), new
    issue = ours[0]
    reopen = "open" if new and issue.get("state") == "closed" else None
    await port.update_issue(repo, int(issue["number"]), body=body, state=reopen)
    return int(issue["number"]), new


async def _listed(port: IssuePort, repo: str, bot_login: str) -> list[dict[str, Any]]:
    """The App's issues. GitHub documents `creator` only as "the user that created the issue", not whether an App's
    `<slug>[bot]` account counts: honoured, it lists the App's issues; ignored, every issue, of which the App's are
    kept; refused (or the slug unknown here), every issue is listed and the App's (any bot's, slug unknown) kept.
    The author matters as much as the signed marker: a person can copy the marker into an issue of theirs, which
    the bot must not adopt."""
    if bot_login:
        try:
            return [i for i in await port.issues_by(repo, bot_login) if _by_app(i, bot_login)]
        except GitHubError as exc:
            if exc.status not in (404, 422):  # a creator GitHub does not take: the wider look below
                raise
    return [i for i in await port.issues_by(repo, "") if _by_app(i, bot_login)]


def _by_app(issue: dict[str, Any], bot_login: str) -> bool:
    user = issue.get("user") or {}
    login = str(user.get("login") or "")
    return login.lower() == bot_login.lower() if bot_login else user.get("type") == "Bot" and login.endswith("[bot]")


async def _known(port: IssuePort, repo: str, known: int | None) -> list[dict[str, Any]]:
    if not known:
        return []
    try:
        return [await port.issue_data(repo, known)]
    except GitHubError as exc:
        if exc.status in (404, 410):  # deleted or transferred: look for it among the App's issues
            return [{}]
        raise
