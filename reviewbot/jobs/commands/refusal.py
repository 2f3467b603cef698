"""The answer to a command from someone without write access: one reply, signed for that person."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reviewbot.jobs.pr_review.post_review import is_bot
from reviewbot.review.findings.fingerprints import read_signed_marker, signed_marker

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort

MAY_SPEND = frozenset({"admin", "maintain", "write"})
NOT_ALLOWED = ("Thanks for asking! Reviews can only be started by people with write access to this repository, "
               "so a maintainer needs to ask for one.")
KIND = "refused"


async def tell_not_allowed(port: GitHubPort, repo: str, number: int, author: str, key: bytes) -> None:
    """The polite reply, with a signed marker naming the person on its last line: whoever keeps no state between
    runs (the Action) finds it on the pull request again, and nobody without the key can write one that counts."""
    marker = signed_marker(KIND, {"login": author.lower()}, key)  # logins are case-insensitive on GitHub
    await port.create_issue_comment(repo, number, f"{NOT_ALLOWED}\n\n{marker}")


def told_before(comments: list[dict[str, Any]], author: str, key: bytes) -> bool:
    """True when one of these conversation comments is reviewbot's refusal to this person: a bot's comment (a
    person may paste a marker they read through the API) whose last line is an authenticated refusal marker."""
    wanted = author.lower()
    return any(is_bot(c.get("user")) and (read_signed_marker(KIND, str(c.get("body") or ""), key) or {}).get("login")
               == wanted for c in comments)
