"""The audit's facts cache on disk: one SQLite file (WAL) under the data dir, shared by the local command and every
worker on the machine as the context index is, bounded, least recently used first; never fatal."""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from reviewbot.audit.factcache import FileFacts, Key
from reviewbot.audit.pyfacts import PyModule, decode, encode
from reviewbot.repos.index_file import IndexFile, corrupt
from reviewbot.review.context.store import encode_definitions
from reviewbot.review.context.symbols import Definition

log = logging.getLogger(__name__)
T = TypeVar("T")
V = TypeVar("V")
FOLDER = "audit-facts"  # under the data dir
DEFAULT_MAX_ENTRIES = 100_000  # about 130 Django-sized trees' distinct files: about 5.5 kB each, 550 MB at most
STAMP_AFTER_S = 3_600.0  # a hit refreshes its entry's age only when older: most plans write nothing
_CHUNK = 500  # blob ids per query: SQLite's bound-parameter limit is 999 on old builds
# Names are joined by spaces (identifiers have none); definitions as the context index encodes them. The file's
# name carries the context index's format (the identifier pattern, the definition queries): a change rebuilds it.
# Table `facts2` adds the elided line ranges; the older `facts` (without them) is dropped. Table `python1`: flow
# listing's facts of a Python blob (pyfacts.py), kept apart: they are made only for the files a walk enters.
_SCHEMA = """
DROP TABLE IF EXISTS facts;
CREATE TABLE IF NOT EXISTS facts2 (blob TEXT NOT NULL, language TEXT NOT NULL, defs TEXT NOT NULL,
                                   names TEXT NOT NULL, elided TEXT NOT NULL, used REAL NOT NULL,
                                   PRIMARY KEY (blob, language)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS facts2_used ON facts2 (used);
CREATE TABLE IF NOT EXISTS python1 (blob TEXT PRIMARY KEY, module TEXT NOT NULL, used REAL NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS python1_used ON python1 (used);
"""


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i:i + _CHUNK]


def _decoded(defs: str, names: str, elided: str) -> FileFacts | None:
    """A row as facts; one that does not decode (a damaged page, a hand edit) is a miss: that file is parsed."""
    try:
        return FileFacts(tuple(Definition(*row) for row in json.loads(defs)), frozenset(names.split()),
                         tuple((int(a), int(b)) for a, b in json.loads(elided)))
    except (ValueError, TypeError) as exc:  # json's errors are ValueErrors; a row of the wrong shape, TypeError
        log.warning("audit facts cache entry not used: %s", exc)
        return None


def _definitions(defs: str) -> tuple[Definition, ...] | None:
    """A row's definitions alone (the context index asks for nothing else), None when they do not decode."""
    try:
        return tuple(Definition(*row) for row in json.loads(defs))
    except (ValueError, TypeError) as exc:
        log.warning("audit facts cache entry not used: %s", exc)
        return None


class SqliteFacts:
    """A FactCache in `root/index-v<format>.sqlite`. A corrupt file is replaced by a new one (`index_file.py`), a
    busy, full or unwritable one answers nothing and keeps nothing: the audit parses, as without a cache."""

    def __init__(self, root: Path, max_entries: int = DEFAULT_MAX_ENTRIES, timeout: float = 30.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.max_entries = max_entries
        self.clock = clock
        self._file = IndexFile(root, _SCHEMA, timeout)

    @property
    def path(self) -> Path:
        return self._file.path

    def _guarded(self, work: Callable[[sqlite3.Connection], T], fallback: T) -> T:
        for attempt in (1, 2):
            try:
                return work(self._file.db())
            except (sqlite3.DatabaseError, OSError) as exc:  # OSError: the file could not be made
                if attempt == 1 and isinstance(exc, sqlite3.DatabaseError) and corrupt(exc):
                    self._file.renew()
                    continue
                log.warning("audit facts cache not used: %s", exc)
                break
        return fallback

    def get(self, keys: Sequence[Key]) -> dict[Key, FileFacts]:
        return self._select(keys, "defs, names, elided", lambda row: _decoded(*row))

    def get_definitions(self, keys: Sequence[Key]) -> dict[Key, tuple[Definition, ...]]:
        return self._select(keys, "defs", lambda row: _definitions(row[0]))

    def get_names(self, keys: Sequence[Key]) -> dict[Key, str]:
        return self._select(keys, "names", lambda row: row[0] if isinstance(row[0], str) else None)

    def _select(self, keys: Sequence[Key], columns: str, decoded: Callable[[tuple[str, ...]], V | None],
                ) -> dict[Key, V]:
        """These columns of the keys' rows, decoded (a row that does not decode is a miss); hits stamped."""
        wanted = set(keys)

        def work(db: sqlite3.Connection) -> dict[Key, V]:
            found: dict[Key, V] = {}
            stale: list[Key] = []
            old = self.clock() - STAMP_AFTER_S
            for part in _chunks(sorted({blob for blob, _ in wanted})):
                marks = ",".join("?" * len(part))
                for blob, language, used, *row in db.execute(
                        f"SELECT blob, language, used, {columns} FROM facts2 WHERE blob IN ({marks})",  # noqa: S608
                        part):
                    if (blob, language) in wanted and (value := decoded(tuple(row))) is not None:
                        found[(blob, language)] = value
                        if used < old:
                            stale.append((blob, language))
            self._stamp(db, stale)
            return found

        return self._guarded(work, {})

    def _stamp(self, db: sqlite3.Connection, keys: list[Key]) -> None:
        """Mark what this audit found as just used (eviction keeps it)."""
        if keys:
            self._write(db, "UPDATE facts2 SET used = ? WHERE blob = ? AND language = ?",
                        [(self.clock(), blob, language) for blob, language in keys])

    def put(self, entries: Mapping[Key, FileFacts]) -> None:
        if not entries:
            return
        rows = [(blob, language, encode_definitions(f.definitions), " ".join(sorted(f.names)),
                 json.dumps([list(r) for r in f.elided]), self.clock())
                for (blob, language), f in sorted(entries.items())]

        def work(db: sqlite3.Connection) -> None:
            with db:
                db.execute("BEGIN IMMEDIATE")
                db.executemany("INSERT OR REPLACE INTO facts2 (blob, language, defs, names, elided, used) "
                               "VALUES (?, ?, ?, ?, ?, ?)", rows)
                total = int(db.execute("SELECT count(*) FROM facts2").fetchone()[0])
                if total > self.max_entries:  # least recently used first, a tenth below the bound: evict rarely
                    db.execute("DELETE FROM facts2 WHERE (blob, language) IN (SELECT blob, language FROM facts2 "
                               "ORDER BY used, blob LIMIT ?)", (total - int(self.max_entries * 0.9),))

        self._guarded(work, None)

    def get_python(self, blobs: Sequence[str]) -> dict[str, PyModule | None]:
        def work(db: sqlite3.Connection) -> dict[str, PyModule | None]:
            found: dict[str, PyModule | None] = {}
            stale: list[str] = []
            old = self.clock() - STAMP_AFTER_S
            for part in _chunks(sorted(set(blobs))):
                marks = ",".join("?" * len(part))
                for blob, module, used in db.execute(
                        f"SELECT blob, module, used FROM python1 WHERE blob IN ({marks})", part):  # noqa: S608
                    try:
                        found[blob] = decode(module)
                    except (ValueError, TypeError) as exc:  # a damaged row is a miss: that file is parsed
                        log.warning("audit facts cache entry not used: %s", exc)
                        continue
                    if used < old:
                        stale.append(blob)
            if stale:
                self._write(db, "UPDATE python1 SET used = ? WHERE blob = ?", [(self.clock(), b) for b in stale])
            return found

        return self._guarded(work, {})

    def put_python(self, entries: Mapping[str, PyModule | None]) -> None:
        if not entries:
            return
        rows = [(blob, encode(module), self.clock()) for blob, module in sorted(entries.items(), key=lambda e: e[0])]

        def work(db: sqlite3.Connection) -> None:
            with db:
                db.execute("BEGIN IMMEDIATE")
                db.executemany("INSERT OR REPLACE INTO python1 (blob, module, used) VALUES (?, ?, ?)", rows)
                total = int(db.execute("SELECT count(*) FROM python1").fetchone()[0])
                if total > self.max_entries:
                    db.execute("DELETE FROM python1 WHERE blob IN (SELECT blob FROM python1 ORDER BY used, blob "
                               "LIMIT ?)", (total - int(self.max_entries * 0.9),))

        self._guarded(work, None)

    def _write(self, db: sqlite3.Connection, sql: str, rows: Sequence[tuple[float, str] | tuple[float, str, str]],
               ) -> None:
        """Ages refreshed; a lock held too long only skips that."""
        try:
            with db:
                db.execute("BEGIN IMMEDIATE")
                db.executemany(sql, rows)
        except sqlite3.OperationalError as exc:
            log.warning("audit facts cache not updated: %s", exc)

    def count(self) -> int:
        return self._guarded(lambda db: int(db.execute("SELECT count(*) FROM facts2").fetchone()[0]), 0)
