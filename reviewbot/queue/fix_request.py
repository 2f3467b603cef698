"""FixRequest: one fix from the command, thread or button that asked for it into the fix job (small JSON args)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from reviewbot.state import keys

ALL = "all"  # every open verified finding of the pull request, rather than one finding's fingerprint
Origin = Literal["thread", "comment", "button"]


@dataclass(frozen=True)
class FixArgs:
    """`target` is a finding's fingerprint or "all"; `comment_id` the review thread's first comment for a thread's
    fix (its reply goes there), else 0."""

    installation_id: int
    repo: str
    number: int
    head_sha: str
    target: str
    author: str
    origin: Origin
    comment_id: int = 0

    @property
    def job_id(self) -> str:
        return keys.fix_job_id(self.repo, self.number, self.head_sha, self.target)

    def job_args(self) -> tuple[Any, ...]:
        return (self.installation_id, self.repo, self.number, self.head_sha, self.target, self.author, self.origin,
                self.comment_id)
