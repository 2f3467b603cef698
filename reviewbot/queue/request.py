"""ReviewRequest: one review asked for, the same value from the webhook's decision through enqueue into the job;
AlertChange: a person's decision on one of reviewbot's code-scanning alerts, on the same way; FixArgs: one fix
asked for (a command, a thread or the Fix button) on its way into the fix job."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from reviewbot.state import keys

SECURITY_TRIGGER = "security-review"  # the review job's trigger for `@app security-review`


@dataclass(frozen=True)
class ReviewRequest:
    """Which commit of which pull request to review, and why. Only small JSON values: the job fetches the rest."""

    installation_id: int
    repo: str
    number: int
    head_sha: str
    trigger: str = "opened"
    full: bool = False  # review every file again, not only what changed since the last review
    draft: bool = False
    before: str | None = None  # the previous head of a `synchronize` push
    run: str = ""  # names the request (a delivery or comment id): a re-run of the same request never posts twice

    def job_args(self) -> tuple[int, str, int, str]:
        """arq's positional arguments: what identifies the review (and its job id)."""
        return self.installation_id, self.repo, self.number, self.head_sha

    def job_kwargs(self) -> dict[str, Any]:
        fields = asdict(self)
        for name in ("installation_id", "repo", "number", "head_sha"):
            del fields[name]
        return fields


@dataclass(frozen=True)
class AlertChange:
    """A person dismissed (`dismissed`) or reopened (`reopened`) reviewbot's alert `number`; for a dismissal, where
    its most recent instance is (rule, file, lines, the commit it was found at) and why."""

    installation_id: int
    repo: str
    number: int
    change: str  # dismissed | reopened
    sender: str
    rule_id: str = ""
    path: str = ""
    start_line: int = 0
    end_line: int = 0
    commit_sha: str = ""
    reason: str = ""
    comment: str = ""


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
