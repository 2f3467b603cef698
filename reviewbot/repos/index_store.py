"""The context index kept between reviews: one SQLite file (WAL) per format under the data dir, bounded, LRU."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from reviewbot.review.context.store import INDEX_FORMAT, decode_definitions, encode_definitions
from reviewbot.review.context.symbols import Definition

DEFAULT_MAX_BLOBS = 400_000  # about 60 Django checkouts' worth of distinct files; a few GB at most
_CHUNK = 500  # SQLite's bound-parameter limit is 999 on old builds
_SCHEMA = """
CREATE TABLE IF NOT EXISTS blobs (id INTEGER PRIMARY KEY, sha TEXT NOT NULL UNIQUE, used REAL NOT NULL,
                                  defs TEXT);
CREATE INDEX IF NOT EXISTS blobs_used ON blobs (used);
CREATE TABLE IF NOT EXISTS names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS postings (name INTEGER NOT NULL, blob INTEGER NOT NULL, PRIMARY KEY (name, blob))
    WITHOUT ROWID;
"""


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i:i + _CHUNK]


class SqliteIndex:
    """An IndexStore in `root/index-v<format>.sqlite`. Concurrent workers share it safely: WAL readers never
    block, writers wait their turn (busy timeout), every write is idempotent (INSERT OR IGNORE). A file of
    another format is deleted, so a format change rebuilds the index transparently."""

    def __init__(self, root: Path, max_blobs: int = DEFAULT_MAX_BLOBS) -> None:
        self.path = root / f"index-v{INDEX_FORMAT}.sqlite"
        self.max_blobs = max_blobs
        self._local = threading.local()  # one connection per thread: plans are built in worker threads
        root.mkdir(parents=True, exist_ok=True)
        for old in root.glob("index-v*.sqlite*"):
            if not old.name.startswith(self.path.name):
                old.unlink(missing_ok=True)

    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # a crash loses at most recent entries, which are rebuilt
            db.executescript(_SCHEMA)
            self._local.db = db
        return db

    def known(self, blobs: Iterable[str]) -> set[str]:
        db, wanted, now = self._db(), sorted(blobs), time.time()
        found: set[str] = set()
        for chunk in _chunks(wanted):
            marks = ",".join("?" * len(chunk))
            found.update(r[0] for r in db.execute(f"SELECT sha FROM blobs WHERE sha IN ({marks})", chunk))  # noqa: S608
        with db:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("UPDATE blobs SET used = ? WHERE sha = ? AND used < ?",
                           [(now, sha, now - 600) for sha in found])  # at most once per ten minutes each
        return found

    def add_names(self, entries: Sequence[tuple[str, Iterable[str]]]) -> None:
        if not entries:
            return
        db, now = self._db(), time.time()
        rows = [(sha, sorted(names)) for sha, names in entries]
        vocabulary = sorted({n for _, names in rows for n in names})
        with db:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT OR IGNORE INTO blobs (sha, used) VALUES (?, ?)", [(s, now) for s, _ in rows])
            db.executemany("INSERT OR IGNORE INTO names (name) VALUES (?)", [(n,) for n in vocabulary])
            ids: dict[str, int] = {}
            for chunk in _chunks(vocabulary):
                marks = ",".join("?" * len(chunk))
                ids.update(db.execute(f"SELECT name, id FROM names WHERE name IN ({marks})", chunk))  # noqa: S608
            blob_ids: dict[str, int] = {}
            for chunk in _chunks([s for s, _ in rows]):
                marks = ",".join("?" * len(chunk))
                blob_ids.update(db.execute(f"SELECT sha, id FROM blobs WHERE sha IN ({marks})", chunk))  # noqa: S608
            db.executemany("INSERT OR IGNORE INTO postings (name, blob) VALUES (?, ?)",
                           ((ids[n], blob_ids[s]) for s, names in rows for n in names))
        self._evict(db)

    def blobs_with(self, name: str) -> list[str]:
        return [r[0] for r in self._db().execute(
            "SELECT b.sha FROM names n JOIN postings p ON p.name = n.id JOIN blobs b ON b.id = p.blob "
            "WHERE n.name = ?", (name,))]

    def definitions(self, blobs: Sequence[str]) -> dict[str, tuple[Definition, ...]]:
        db, out = self._db(), {}
        for chunk in _chunks(list(blobs)):
            marks = ",".join("?" * len(chunk))
            for sha, raw in db.execute(
                    f"SELECT sha, defs FROM blobs WHERE defs IS NOT NULL AND sha IN ({marks})", chunk):  # noqa: S608
                out[sha] = decode_definitions(raw)
        return out

    def add_definitions(self, blob: str, definitions: tuple[Definition, ...]) -> None:
        db = self._db()
        with db:
            db.execute("INSERT INTO blobs (sha, used, defs) VALUES (?, ?, ?) "
                       "ON CONFLICT (sha) DO UPDATE SET defs = excluded.defs",
                       (blob, time.time(), encode_definitions(definitions)))

    def count(self) -> int:
        return int(self._db().execute("SELECT count(*) FROM blobs").fetchone()[0])

    def _evict(self, db: sqlite3.Connection) -> None:
        """Least recently used blobs go first, a tenth of the bound at a time (so eviction is rare)."""
        excess = self.count() - self.max_blobs
        if excess <= 0:
            return
        with db:
            db.execute("BEGIN IMMEDIATE")
            victims = [r[0] for r in db.execute("SELECT id FROM blobs ORDER BY used LIMIT ?",
                                                (excess + self.max_blobs // 10,))]
            for i in range(0, len(victims), _CHUNK):
                chunk = victims[i:i + _CHUNK]
                marks = ",".join("?" * len(chunk))
                db.execute(f"DELETE FROM postings WHERE blob IN ({marks})", chunk)  # noqa: S608
                db.execute(f"DELETE FROM blobs WHERE id IN ({marks})", chunk)  # noqa: S608
