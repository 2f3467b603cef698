"""`push` → an audit after pushes to the default branch (when its config opts in), or a reasoned ignore (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BRANCH_PREFIX = "refs/heads/"


@dataclass(frozen=True)
class DefaultBranchPush:
    """Commits landed on the repository's default branch: a deferred job (one per branch and debounce window)
    reads the branch's config and, if `audit.on_push` is on, audits its head then."""

    installation_id: int
    repo: str
    branch: str


def default_branch_push(payload: dict[str, Any], field: Any) -> DefaultBranchPush | str:
    """The push, or why it is ignored: tags, deleted branches and branches other than the default one. The
    payload says which branch is the default (`repository.default_branch`), so this needs no GitHub call."""
    ref = field(payload, "ref", str)
    repository = field(payload, "repository", dict)
    if not ref.startswith(BRANCH_PREFIX):
        return "push of a tag, not a branch"
    if payload.get("deleted") is True:
        return "branch deleted"
    branch = ref.removeprefix(BRANCH_PREFIX)
    if branch != repository.get("default_branch"):
        return "push to a branch other than the default branch"
    installation = field(payload, "installation", dict)
    return DefaultBranchPush(installation_id=field(installation, "id", int),
                             repo=field(repository, "full_name", str), branch=branch)
