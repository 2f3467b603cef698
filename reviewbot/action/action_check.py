"""The `reviewbot` check run as the Action writes it: the service's CheckRun without Redis, remembering how it
ended (for the step summary and the exit code) and explaining a token without `checks: write`."""

from __future__ import annotations

from typing import Any

from reviewbot.action.permissions import explain, refused
from reviewbot.app.port import GitHubPort
from reviewbot.errors import GitHubError
from reviewbot.jobs.pr_review.checkrun import CheckRun


class ActionCheck(CheckRun):
    def __init__(self, port: GitHubPort, repo: str, head_sha: str, number: int) -> None:
        super().__init__(port, None, repo, head_sha, number)
        self.ended: tuple[str, str, str] | None = None  # (conclusion, title, summary)

    async def open(self, status: str, title: str, summary: str) -> int:
        try:
            return await super().open(status, title, summary)
        except GitHubError as exc:
            if refused(exc):
                raise explain(exc, "checks", "create the `reviewbot` check run") from exc
            raise

    async def complete(self, conclusion: str, title: str, summary: str,
                       annotations: list[dict[str, Any]] | None = None, *, fixable: bool = False) -> None:
        self.ended = (conclusion, title, summary)
        try:  # the Action offers no Fix button: it has no worker to run the fix
            await super().complete(conclusion, title, summary, annotations)
        except GitHubError as exc:
            if refused(exc):
                raise explain(exc, "checks", "complete the `reviewbot` check run") from exc
            raise
