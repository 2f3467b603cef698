"""A read-only view of the repository at the base commit; the engine reads files only through it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
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
        self._blob_ids: dict[str, str] | None = None

    def paths(self) -> Sequence[str]:
        return self._paths

    def blob_ids(self) -> dict[str, str]:
        from reviewbot.review.context.store import git_blob_id  # store imports symbols (tree-sitter): lazily

        if self._blob_ids is None:
            self._blob_ids = {p: git_blob_id(t.encode("utf-8", errors="replace")) for p, t in self._files.items()}
        return self._blob_ids

    def read_many(self, paths: Sequence[str]) -> Iterator[tuple[str, str | None]]:
        return ((p, self.read(p)) for p in paths)

    def read(self, path: str) -> str | None:
        text = self._files.get(path)
        if text is None or len(text) > MAX_TEXT_BYTES or "\0" in text[:8000]:
            return None
        return text
