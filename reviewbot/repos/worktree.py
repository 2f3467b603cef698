"""The working tree for `reviewbot review`: what is not committed, and the tree as a commit of its own."""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from reviewbot.errors import ConfigError

# commit-tree needs an identity; the commit is never referenced by a branch, so git's gc removes it in time.
_IDENTITY = {"GIT_AUTHOR_NAME": "reviewbot", "GIT_AUTHOR_EMAIL": "reviewbot@localhost",
             "GIT_COMMITTER_NAME": "reviewbot", "GIT_COMMITTER_EMAIL": "reviewbot@localhost"}


@dataclass(frozen=True)
class Uncommitted:
    changed: int  # tracked files modified, added to the index or deleted
    untracked: int  # new files git does not ignore

    def __bool__(self) -> bool:
        return bool(self.changed or self.untracked)

    def describe(self) -> str:
        parts = [f"{self.changed} changed file(s)"] if self.changed else []
        parts += [f"{self.untracked} untracked file(s)"] if self.untracked else []
        return " and ".join(parts)


def _git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False,  # noqa: S603, S607
                              timeout=120, env=env)
    except FileNotFoundError:
        raise ConfigError("git is not installed or not on PATH") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise ConfigError(f"git {args[0]} failed: {message[-1] if message else 'exit ' + str(done.returncode)}")
    return done.stdout.decode("utf-8", errors="replace")


def uncommitted(root: Path) -> Uncommitted:
    """What `git status` would list (ignored files excluded)."""
    fields = iter(_git(root, "status", "--porcelain=v1", "-z").split("\0"))
    changed = untracked = 0
    for entry in fields:
        if len(entry) < 4:
            continue
        if entry.startswith("??"):
            untracked += 1
            continue
        changed += 1
        if "R" in entry[:2] or "C" in entry[:2]:
            next(fields, None)  # a rename or copy is followed by its original path
    return Uncommitted(changed=changed, untracked=untracked)


def worktree_commit(root: Path, parent: str, leave_out: Path | None = None) -> str:
    """A commit of the working tree (tracked and untracked, .gitignore honoured) on top of `parent`, built in a
    temporary index so the user's index and branches are never touched. `leave_out`: a folder inside the tree not
    to include (reviewbot's own data dir, when it is set there)."""
    with tempfile.TemporaryDirectory(prefix="reviewbot-index-") as tmp:
        env = {**os.environ, **_IDENTITY, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _git(root, "read-tree", parent, env=env)
        spec = ["--", "."]
        if leave_out is not None and leave_out.resolve().is_relative_to(root.resolve()):
            spec.append(f":(exclude){leave_out.resolve().relative_to(root.resolve()).as_posix()}")
        _git(root, "add", "-A", *spec, env=env)
        tree = _git(root, "write-tree", env=env).strip()
    return _git(root, "commit-tree", tree, "-p", parent, "-m", "Uncommitted changes", env=env).strip()
