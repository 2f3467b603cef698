"""What the context engine keeps between reviews, per file content (git blob id): names used, definitions."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Protocol, runtime_checkable

from reviewbot.review.context.symbols import Definition

# Bump when what is stored per blob changes (the identifier pattern, the definition queries, the encoding):
# a store of another format is rebuilt, never read.
INDEX_FORMAT = 5  # 3: definitions per blob and language; 4: long signatures end in a digest of the whole; 5: FTS5


class IndexStore(Protocol):
    """Per-blob facts that outlive one review; implementations are safe for concurrent workers."""

    def known(self, blobs: Iterable[str]) -> set[str]:
        """Which of these blobs are indexed already (and marks them as recently used)."""
        ...

    def add_names(self, entries: Sequence[tuple[str, Iterable[str]]]) -> None:
        """Record the identifiers each blob's text holds (an empty set for files too big or not text)."""
        ...

    def blobs_with(self, name: str) -> list[str]:
        """Every indexed blob whose text holds the identifier `name`."""
        ...

    def definitions(self, blobs: Sequence[str], language: str) -> dict[str, tuple[Definition, ...]]:
        """The stored definitions of those blobs that were parsed before as `language` ("" for the plain-text
        fallback): the same bytes under `.py` and `.js` parse differently."""
        ...

    def add_definitions(self, blob: str, language: str, definitions: tuple[Definition, ...]) -> None:
        ...


@runtime_checkable
class BlobSnapshot(Protocol):
    """A snapshot that knows each file's git blob id, so per-content facts can be looked up."""

    def blob_ids(self) -> Mapping[str, str]:
        """path -> git blob id, for every file whose text can be read."""
        ...

    def read_many(self, paths: Sequence[str]) -> Iterator[tuple[str, str | None]]:
        """(path, text) for each path, in order: a bulk read for indexing (not kept in memory)."""
        ...


def git_blob_id(data: bytes) -> str:
    """The id git gives a file's content: sha1 of `blob <size>\\0` and the bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def encode_definitions(definitions: tuple[Definition, ...]) -> str:
    return json.dumps([[d.name, d.kind, d.start, d.end, d.signature, d.parent] for d in definitions],
                      separators=(",", ":"))


def decode_definitions(raw: str) -> tuple[Definition, ...]:
    """What `encode_definitions` wrote: JSON already gives each field its type, so none is converted again (a
    warm review decodes a thousand files' definitions; the conversions were half of that)."""
    return tuple(Definition(n, k, s, e, sig, p) for n, k, s, e, sig, p in json.loads(raw))
