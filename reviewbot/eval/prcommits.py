"""Where a benchmark pull request lives locally: its clone under `--repos`, and its base and head commits in it."""

from __future__ import annotations

from pathlib import Path

from reviewbot.errors import ConfigError
from reviewbot.eval.golden import BenchmarkPR
from reviewbot.repos.localgit import git

FETCH_HINT = "git -C {clone} fetch origin '+refs/pull/*/head:refs/pull/*/head'"


def find_clone(repos: Path, pr: BenchmarkPR) -> Path:
    """`REPOS/OWNER/NAME`, `REPOS/NAME` or `REPOS/<golden file stem>`, the first that exists."""
    for candidate in (repos / pr.owner / pr.name, repos / pr.name, repos / pr.source):
        if candidate.is_dir():
            return candidate
    raise ConfigError(f"{pr.url}: no clone of {pr.repo} under {repos} (looked for {pr.owner}/{pr.name}, "
                      f"{pr.name} and {pr.source})")


def _commit(clone: Path, ref: str) -> str | None:
    try:
        return git(clone, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip() or None
    except ConfigError:
        return None


def head_commit(clone: Path, pr: BenchmarkPR) -> str:
    """The pull request's head: the benchmark entry's `head_sha`, else GitHub's `refs/pull/N/head`, fetched."""
    ref = pr.head_sha or f"refs/pull/{pr.number}/head"
    found = _commit(clone, ref)
    if found is None:
        raise ConfigError(f"{pr.url}: {ref} is not in {clone}; fetch the pull requests' heads first: "
                          + FETCH_HINT.format(clone=clone))
    return found


def base_commit(clone: Path, pr: BenchmarkPR, head: str, base_ref: str | None) -> str:
    """What the head is compared with (reviewbot reviews merge-base(base, head)..head, as GitHub shows a pull
    request): the entry's `base_sha`, else the branch it went into (`base_ref`, default the clone's
    `origin/HEAD`, else `HEAD`). A pull request merged with a merge commit is already in that branch: then the
    base is the merge commit's first parent, the branch as it was just before the merge."""
    if pr.base_sha:
        if (found := _commit(clone, pr.base_sha)) is None:
            raise ConfigError(f"{pr.url}: base_sha {pr.base_sha} is not in {clone}")
        return found
    refs = [base_ref] if base_ref else ["origin/HEAD", "HEAD"]
    branch = next((c for ref in refs if (c := _commit(clone, ref)) is not None), None)
    if branch is None:
        raise ConfigError(f"{pr.url}: {' or '.join(refs)} does not name a commit in {clone}")
    if not _is_ancestor(clone, head, branch):
        return branch
    merges = git(clone, "rev-list", "--ancestry-path", "--merges", "--reverse", f"{head}..{branch}").split()
    if not merges:
        raise ConfigError(f"{pr.url}: its head is already in {refs[0]} without a merge commit (fast-forward or "
                          "rebase); set `base_sha` on the entry")
    return git(clone, "rev-parse", f"{merges[0].decode()}^1").decode().strip()


def _is_ancestor(clone: Path, commit: str, of: str) -> bool:
    try:
        git(clone, "merge-base", "--is-ancestor", commit, of)
    except ConfigError:
        return False
    return True
