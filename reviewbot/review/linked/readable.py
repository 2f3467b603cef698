"""Which linked issues a review may read: only those everyone who can read the pull request can read too."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# One wording for every issue not read, whatever the reason (no such issue or repository, forbidden, private, not
# allowed): a difference between them would tell a stranger which private repositories the App is installed on.
UNREADABLE = "not found, or not visible to everyone who can read this pull request"
# The key only the organisation's defaults (its `.github` repository) may set; a repository's own file may not.
ORG_ONLY_KEY = "linked_issues"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")

Decision = Literal["read", "read if public"]


class LinkedIssuesConfig(BaseModel):
    """`linked_issues` in the organisation's defaults; see docs/configuration.md for the rule."""

    model_config = ConfigDict(extra="forbid")  # a misspelled key is an error, never silently ignored

    readable_repos: list[str] = Field(
        default_factory=list, max_length=200,
        description="Private or internal repositories (owner/name) whose issues reviews of private and internal "
        "pull requests may read and quote. Only read from the organisation's `.github` repository; never used "
        "for a public pull request.")

    @field_validator("readable_repos")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        bad = [v for v in value if not _NAME.fullmatch(v.strip())]
        if bad:
            raise ValueError(f"not an owner/name: {', '.join(bad[:5])}")
        return [v.strip() for v in value]


def decide(repo: str, issue_repo: str, *, pr_public: bool, readable: Iterable[str]) -> Decision:
    """Read an issue of the pull request's own repository, or of a repository the organisation allows for a
    non-public pull request; any other is read only if its repository is public (the caller asks GitHub).
    `pr_public` must be true whenever the pull request's visibility is not known to be private or internal."""
    issue_repo = issue_repo.lower()
    if issue_repo == repo.lower():
        return "read"
    if not pr_public and issue_repo in {r.lower() for r in readable}:
        return "read"
    return "read if public"
