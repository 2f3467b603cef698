"""Why a fix is declined: one reason per check, each with the words the reply uses."""

from __future__ import annotations

from typing import Literal

Reason = Literal["no-edits", "does-not-apply", "does-not-parse", "out-of-scope", "too-large", "secret",
                 "not-fixed", "new-findings", "no-fixable-findings", "budget", "invalid-answer", "still-reported"]
# What a person reads in the reply; the detail (which file, which finding) follows it.
REASON_TEXT: dict[Reason, str] = {
    "no-edits": "the model proposed no change",
    "does-not-apply": "the edits do not apply exactly to the pull request's head",
    "does-not-parse": "a changed file no longer parses",
    "out-of-scope": "the change touches files the finding does not name",
    "too-large": "the change is larger than a fix may be",
    "secret": "the change would write a secret-looking string",
    "not-fixed": "the verifier did not confirm that the change fixes the finding",
    "new-findings": "a review of the change raised a new critical or major finding",
    "no-fixable-findings": "the latest review has no open verified finding to fix",
    "budget": "the fix would not fit the review's token budget",
    "invalid-answer": "the model's answer was not a valid fix",
    "still-reported": "an audit of the changed files still reports the finding",
}


class Declined(Exception):  # an outcome told in the reply, not an error
    """A check failed: nothing is pushed or suggested; `reason` is recorded, `detail` told."""

    def __init__(self, reason: Reason, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason: Reason = reason
        self.detail = detail

    @property
    def text(self) -> str:
        """The reply's sentence: the reason in words, then the detail."""
        words = REASON_TEXT[self.reason]
        return f"{words} ({self.detail})" if self.detail else words
