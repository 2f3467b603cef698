"""Local git changes for `reviewbot review`: merge-base(base, head)..head, read with the git CLI."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from reviewbot.errors import ConfigError
from reviewbot.repos.gitsnapshot import GitSnapshot
from reviewbot.review.context.snapshot import Snapshot
from reviewbot.review.diff.parse import ParsedDiff, parse_diff

MAX_FILE_BYTES = 1_000_000


@dataclass(frozen=True)
class LocalChange:
    root: Path
    identity: str
    branch: str
    merge_base: str
    head_sha: str
    title: str
    description: str
    diff: ParsedDiff
    base_files: dict[str, str]
    snapshot: Snapshot | None = None  # the whole base tree, from the repository cache


def git(root: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False,  # noqa: S603, S607
                              timeout=120)
    except FileNotFoundError:
        raise ConfigError("git is not installed or not on PATH") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise ConfigError(f"git {args[0]} failed: {message[-1] if message else 'exit ' + str(done.returncode)}")
    return done.stdout


def _text(root: Path, *args: str) -> str:
    return git(root, *args).decode("utf-8", errors="replace").strip()


def read_local_change(repo: Path, base: str, head: str = "HEAD", whole_tree: bool = True) -> LocalChange:
    """The change a PR from `head` into `base` would show, with the whole base tree (read from git's object
    store as needed) or only the base versions of the touched files."""
    root = Path(_text(repo, "rev-parse", "--show-toplevel"))
    head_sha = _text(root, "rev-parse", "--verify", f"{head}^{{commit}}")
    merge_base = _text(root, "merge-base", base, head_sha)
    raw = git(root, "diff", "--no-color", "--no-ext-diff", "-M", "--full-index", merge_base, head_sha)
    diff = parse_diff(raw.decode("utf-8", errors="replace"))
    branch = _text(root, "rev-parse", "--abbrev-ref", head)
    try:
        identity = _text(root, "config", "--get", "remote.origin.url")
    except ConfigError:
        identity = str(root.resolve())
    # Oldest commit first: its subject is the branch's stable title, and a push appends to the list instead of
    # changing its start (the pull-request text sits after the diff, but its own prefix still caches).
    log = _text(root, "log", "--reverse", "--format=%s%n%n%b", f"{merge_base}..{head_sha}")
    title = log.splitlines()[0] if log else f"Changes on {branch}"
    if whole_tree:
        return LocalChange(root=root, identity=identity, branch=branch if branch != "HEAD" else head_sha,
                           merge_base=merge_base, head_sha=head_sha, title=title, description=log,
                           diff=diff, base_files={}, snapshot=GitSnapshot(root, merge_base))
    base_files: dict[str, str] = {}
    for file in diff.files:
        if file.status == "added" or file.binary or not file.old_path:
            continue
        blob = git(root, "show", f"{merge_base}:{file.old_path}")
        if len(blob) <= MAX_FILE_BYTES and b"\0" not in blob[:8000]:
            base_files[file.old_path] = blob.decode("utf-8", errors="replace")
    return LocalChange(root=root, identity=identity, branch=branch if branch != "HEAD" else head_sha,
                       merge_base=merge_base, head_sha=head_sha, title=title, description=log,
                       diff=diff, base_files=base_files)

