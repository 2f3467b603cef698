"""Who may dismiss a finding, and where the dismissal holds: this pull request only, or the whole repository."""

from __future__ import annotations

from dataclasses import dataclass

ELEVATED = frozenset({"admin", "maintain"})
AUTHOR_ONLY = ("you opened this pull request, so the dismissal holds here only; a repository-wide one needs "
               "another person with write access, or a maintainer")
NEEDS_MAINTAINER = ("a {what} finding is remembered for the whole repository only when a maintainer or an admin "
                    "dismisses it, so this dismissal holds on this pull request only")


@dataclass(frozen=True)
class Scope:
    repository: bool  # False: this pull request only
    why: str = ""  # why it is narrower than the whole repository, said in the acknowledgement


def dismissal_scope(*, role: str, by_author: bool, severity: str, security: bool) -> Scope:
    """The PR's author dismisses for their PR only; a repository-wide learning needs another person with write
    access, or maintain/admin; a critical or security finding needs maintain/admin for the whole repository."""
    if role in ELEVATED:
        return Scope(repository=True)
    if by_author:
        return Scope(repository=False, why=AUTHOR_ONLY)
    if security or severity == "critical":
        return Scope(repository=False, why=NEEDS_MAINTAINER.format(what="security" if security else "critical"))
    return Scope(repository=True)
