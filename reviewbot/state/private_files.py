"""Private files: the data directory and what is under it are the service user's alone (0700 / 0600)."""

from __future__ import annotations

import os
from pathlib import Path

DIR_MODE = 0o700  # cached installation tokens (Redis's append-only file) and private source code live here
FILE_MODE = 0o600
UMASK = 0o077  # for child processes (the embedded Redis) that create files of their own


def private_dir(path: Path) -> Path:
    """Make `path` and its missing parents 0700 (mkdir's `parents` ignores the mode), and tighten `path` when an
    older version left it 0755."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for folder in reversed(missing):
        folder.mkdir(mode=DIR_MODE, exist_ok=True)
    if path.stat().st_mode & 0o777 != DIR_MODE:
        os.chmod(path, DIR_MODE)
    return path


def tighten(path: Path) -> None:
    """0600 files and 0700 directories from `path` down (files written before modes were enforced)."""
    if not path.exists() or path.is_symlink():
        return
    try:
        if path.is_dir():
            os.chmod(path, DIR_MODE)
            for child in path.iterdir():
                tighten(child)
        else:
            os.chmod(path, FILE_MODE)
    except FileNotFoundError:  # removed meanwhile by another process (SQLite's journal, a finished download)
        return


def write_private(path: Path, text: str) -> None:
    """Write `text` 0600 through a temporary file and a rename (a crash never leaves half a file)."""
    private_dir(path.parent)
    partial = path.with_name(path.name + ".tmp")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.replace(partial, path)
