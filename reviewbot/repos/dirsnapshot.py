"""A cached tree on disk as the context engine's Snapshot: sorted relative paths, text reads with a size cap."""

from __future__ import annotations

import json
import os
import stat
import uuid
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from reviewbot.repos.safetar import NAME_NOTES, utf8
from reviewbot.review.context.snapshot import MAX_TEXT_BYTES
from reviewbot.review.context.store import git_blob_id

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
LISTING = "blobs.tsv"  # beside a cached tree: every path and its blob id, written once (the tree never changes)


class DirSnapshot:
    """A cached tree as the engine's Snapshot: sorted relative paths, text reads with a size cap, blob ids
    (hashed once per tree and kept beside it when the tree is a cache entry's `tree` folder)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._paths: list[str] | None = None
        self._blobs: dict[str, str] | None = None
        self._listing = root.parent / LISTING if root.name == "tree" else None

    def notes(self) -> tuple[str, ...]:
        """Coverage notes for the files whose names the extraction could not keep (from the entry's meta.json)."""
        if self._listing is None:
            return ()
        try:
            skipped = json.loads((self.root.parent / "meta.json").read_text(encoding="utf-8")).get("skipped") or {}
        except (OSError, ValueError, AttributeError):  # no entry beside the tree (a plain folder), or not ours
            return ()
        return tuple(f"{count} file(s) left out of the repository's tree: {why}"
                     for why, count in sorted(skipped.items()) if why in NAME_NOTES)

    def blob_ids(self) -> Mapping[str, str]:
        if self._blobs is None:
            listed = self._read_listing()
            if listed is None:
                listed = {}
                for path in self.paths():
                    target = os.path.join(self.root, path)
                    try:
                        if os.path.islink(target) or os.path.getsize(target) > MAX_TEXT_BYTES:
                            listed[path] = ""
                            continue
                        with open(target, "rb") as f:
                            listed[path] = git_blob_id(f.read())
                    except OSError:
                        listed[path] = ""
                self._write_listing(listed)
            self._paths = self._paths or sorted(listed)
            self._blobs = {p: b for p, b in listed.items() if b}
        return self._blobs

    def _read_listing(self) -> dict[str, str] | None:
        if self._listing is None:
            return None
        try:
            info = os.stat(self._listing)
        except OSError:
            return None
        listed = _parsed_listing(str(self._listing), info.st_mtime_ns, info.st_size)
        return dict(listed) if listed is not None else None

    def _write_listing(self, blobs: Mapping[str, str]) -> None:
        if self._listing is None or any("\n" in p or "\t" in p or "\r" in p for p in blobs):
            return  # a name the format cannot hold: the tree is hashed on each use instead
        temp = self._listing.with_name(f".{LISTING}.{uuid.uuid4().hex}")
        try:  # written whole then renamed: concurrent readers see all of it or none
            temp.write_bytes(("v1\n" + "".join(f"{b}\t{p}\n" for p, b in blobs.items())).encode("utf-8"))
            os.replace(temp, self._listing)
        except OSError:
            temp.unlink(missing_ok=True)

    def paths(self) -> Sequence[str]:
        if self._paths is None and self._listing is not None and self._listing.exists():
            self.blob_ids()  # the listing names every path: no walk of the tree
        if self._paths is None:
            found: list[str] = []
            for folder, dirs, files in os.walk(self.root):
                dirs[:] = [d for d in dirs if d != ".git"]
                rel = os.path.relpath(folder, self.root)
                prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
                found += [prefix + name for name in files if utf8(prefix + name)]
            self._paths = sorted(found)
        return self._paths

    def read_many(self, paths: Sequence[str]) -> Iterator[tuple[str, str | None]]:
        return ((p, self.read(p)) for p in paths)

    def read(self, path: str) -> str | None:
        parts = path.split("/")
        if path.startswith("/") or any(p in ("", ".", "..") for p in parts):
            return None
        target = os.path.join(self.root, path)  # os.path, not pathlib: thousands of reads per review
        # One open and one fstat: a symbolic link fails to open (ELOOP), as islink refused it before.
        try:
            fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | NOFOLLOW)  # a FIFO does not block
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_TEXT_BYTES:
                return None
            data = _read_all(fd, info.st_size)
        except OSError:
            return None
        finally:
            os.close(fd)
        if b"\0" in data[:8000]:
            return None
        return data.decode("utf-8", errors="replace")


@lru_cache(maxsize=8)
def _parsed_listing(listing: str, mtime_ns: int, size: int) -> dict[str, str] | None:
    """A tree's listing, parsed once per process while the file is unchanged: every job of an audit makes its own
    snapshot of the same tree (Django: 6,875 rows, ~12 ms a parse, 48 chunk jobs)."""
    try:  # bytes, split on "\n" only: text mode would also split a name holding "\r"
        lines = Path(listing).read_bytes().decode("utf-8").split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    rows = [line.split("\t", 1)[::-1] for line in lines[1:] if line]
    if lines[0] != "v1" or any(len(row) != 2 for row in rows):
        return None  # not a listing this code wrote: the tree is hashed again
    return dict((path, blob) for path, blob in rows)


def _read_all(fd: int, size: int) -> bytes:
    """The file's bytes to its end by `os.read`: its size in one call (no buffered file object for each of the
    thousands of reads an audit makes), then on until the end, as `read()` would (a file that grew meanwhile)."""
    parts: list[bytes] = []
    while chunk := os.read(fd, size + 1 if not parts else 1 << 16):
        parts.append(chunk)
    return parts[0] if len(parts) == 1 else b"".join(parts)
