"""What to tell a workflow author when GitHub refuses the token (403): which `permissions:` entry is missing."""

from __future__ import annotations

from typing import TypeGuard

from reviewbot.errors import GitHubError, PermanentError

FORK_NOTE = ("On a pull request from a fork, the `pull_request` event gets no secrets and a read-only token whatever "
             "the workflow asks for; use `pull_request_target` (reviewbot only reads the pull request through the API "
             "and never runs its code).")


class MissingPermission(PermanentError):
    """The token may not do what the review needs; the message says what to add to the workflow."""


def explain(exc: GitHubError, scope: str, doing: str) -> MissingPermission:
    """`scope` is the `permissions:` key the refused request needs (`checks`, `pull-requests`)."""
    return MissingPermission(f"GitHub refused to {doing} (403): the workflow's token needs `{scope}: write`. Add it "
                             f"to the workflow's `permissions:` block (also `contents: read`, and `pull-requests: "
                             f"write` and `checks: write` for the review). {FORK_NOTE} ({exc})")


def refused(exc: BaseException) -> TypeGuard[GitHubError]:
    return isinstance(exc, GitHubError) and exc.status == 403
