"""A read-only view of the repository at the base commit; the engine reads files only through it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

MAX_TEXT_BYTES = 1_000_000  # bigger files are data, not something to read as context


class Snapshot(Protocol):
    def paths(self) -> Sequence[str]:
        """Every file path, sorted."""
        ...

    def read(self, path: str) -> str | None:
        """A file's text; None when it is missing, binary or over MAX_TEXT_BYTES."""
        ...


class MemorySnapshot:
    """Files held in memory: the contents-API fallback, the CLI without a cache, and tests."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self._files = dict(files)
        self._paths = sorted(self._files)

    def paths(self) -> Sequence[str]:
        return self._paths

    def read(self, path: str) -> str | None:
        text = self._files.get(path)
        if text is None or len(text) > MAX_TEXT_BYTES or "\0" in text[:8000]:
            return None
        return text
