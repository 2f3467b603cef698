"""A cached tree on disk as the context engine's Snapshot: sorted relative paths, text reads with a size cap."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from reviewbot.review.context.snapshot import MAX_TEXT_BYTES


class DirSnapshot:
    """A cached tree as the engine's Snapshot: sorted relative paths, text reads with a size cap."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._paths: list[str] | None = None

    def paths(self) -> Sequence[str]:
        if self._paths is None:
            found: list[str] = []
            for folder, dirs, files in os.walk(self.root):
                dirs[:] = [d for d in dirs if d != ".git"]
                rel = os.path.relpath(folder, self.root)
                prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
                found += [prefix + name for name in files]
            self._paths = sorted(found)
        return self._paths

    def read(self, path: str) -> str | None:
        parts = path.split("/")
        if path.startswith("/") or any(p in ("", ".", "..") for p in parts):
            return None
        target = self.root.joinpath(*parts)
        try:
            if target.is_symlink() or target.stat().st_size > MAX_TEXT_BYTES:
                return None
            data = target.read_bytes()
        except OSError:
            return None
        if b"\0" in data[:8000]:
            return None
        return data.decode("utf-8", errors="replace")
