"""A review's precision policy (passes, verification, security mode), apart from the code that applies it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the findings' schema and verification load pydantic; a dry run reads only this policy
    from reviewbot.review.findings.schema import Severity
    from reviewbot.review.findings.verification import VerifyPolicy


@dataclass(frozen=True)
class Precision:
    """A review's precision policy, from the repository config (and `security-review`)."""

    verify: VerifyPolicy = "major"
    passes: int = 1
    security: bool = False  # security mode: the checklist is in the prompt and every candidate is verified
    threshold: Severity = "minor"

    @property
    def policy(self) -> VerifyPolicy:
        return "all" if self.security else self.verify
