"""The context index kept between reviews: one SQLite file (WAL) per format under the data dir, bounded, LRU."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from array import array
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from reviewbot.review.context.store import INDEX_FORMAT, decode_definitions, encode_definitions
from reviewbot.review.context.symbols import Definition

log = logging.getLogger(__name__)
DEFAULT_MAX_BLOBS = 400_000  # about 60 Django checkouts' worth of distinct files; a few GB at most
_CHUNK = 500  # SQLite's bound-parameter limit is 999 on old builds
# A batch is the blobs one review indexed; its postings are one row per name with the blob ids packed, so a
# first review of a large repository writes tens of thousands of rows, not millions. Eviction is per batch.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (id INTEGER PRIMARY KEY, used REAL NOT NULL, size INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS batches_used ON batches (used);
CREATE TABLE IF NOT EXISTS blobs (id INTEGER PRIMARY KEY, sha TEXT NOT NULL UNIQUE, batch INTEGER NOT NULL,
                                  defs TEXT);
CREATE INDEX IF NOT EXISTS blobs_batch ON blobs (batch);
CREATE TABLE IF NOT EXISTS postings (name TEXT NOT NULL, batch INTEGER NOT NULL, blobs BLOB NOT NULL,
                                     PRIMARY KEY (name, batch)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS postings_batch ON postings (batch);
"""


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i:i + _CHUNK]


class SqliteIndex:
    """An IndexStore in `root/index-v<format>.sqlite`. Concurrent workers share it safely: WAL readers never
    block, writers wait their turn (busy timeout), blobs are INSERT OR IGNORE (two workers indexing the same
    content leave harmless duplicate postings). A file of another format is deleted, so a format change
    rebuilds the index transparently. Answers cover the blobs this instance was asked about (one review's)."""

    def __init__(self, root: Path, max_blobs: int = DEFAULT_MAX_BLOBS, timeout: float = 60.0) -> None:
        self.path = root / f"index-v{INDEX_FORMAT}.sqlite"
        self.max_blobs = max_blobs
        self.timeout = timeout  # how long a writer waits for another's transaction
        self._local = threading.local()  # one connection per thread: plans are built in worker threads
        self._ids: dict[str, int] = {}  # blob sha -> row id, for the blobs of this review
        self._shas: dict[int, str] = {}
        self._unstored: dict[str, set[str]] = {}  # name -> blobs, when the store could not be written
        root.mkdir(parents=True, exist_ok=True)
        for old in root.glob("index-v*.sqlite*"):
            if not old.name.startswith(self.path.name):
                old.unlink(missing_ok=True)

    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # a crash loses at most recent entries, which are rebuilt
            db.execute("PRAGMA cache_size=-32000")  # 32 MB of pages: a first review writes a large batch
            db.executescript(_SCHEMA)
            self._local.db = db
        return db

    def _remember(self, rows: Iterable[tuple[str, int]]) -> None:
        for sha, rowid in rows:
            self._ids[sha] = rowid
            self._shas[rowid] = sha

    def known(self, blobs: Iterable[str]) -> set[str]:
        db, batches, found = self._db(), set[int](), set[str]()
        for chunk in _chunks(sorted(blobs)):
            marks = ",".join("?" * len(chunk))
            rows = db.execute(f"SELECT sha, id, batch FROM blobs WHERE sha IN ({marks})", chunk).fetchall()  # noqa: S608
            self._remember((sha, rowid) for sha, rowid, _ in rows)
            batches.update(batch for _, _, batch in rows)
            found.update(sha for sha, _, _ in rows)
        now = time.time()
        try:
            with db:
                db.execute("BEGIN IMMEDIATE")
                db.executemany("UPDATE batches SET used = ? WHERE id = ?", [(now, b) for b in sorted(batches)])
        except sqlite3.OperationalError as exc:  # the use stamp only steers eviction
            log.warning("context index not updated: %s", exc)
        return found

    def add_names(self, entries: Sequence[tuple[str, Iterable[str]]]) -> None:
        try:
            self._add_names(entries)
        except sqlite3.OperationalError as exc:  # a full disk or a lock held too long: this review goes on
            log.warning("context index not updated: %s", exc)
            self._remember_unstored(entries)

    def _remember_unstored(self, entries: Sequence[tuple[str, Iterable[str]]]) -> None:
        """Keep this review's answers in memory when the store cannot take them."""
        for sha, names in entries:
            rowid = self._ids.get(sha) or -len(self._shas) - 1
            self._remember([(sha, rowid)])
            for name in names:
                self._unstored.setdefault(name, set()).add(sha)

    def _add_names(self, entries: Sequence[tuple[str, Iterable[str]]]) -> None:
        if not entries:
            return
        db = self._db()
        with db:
            db.execute("BEGIN IMMEDIATE")
            batch = db.execute("INSERT INTO batches (used, size) VALUES (?, ?)",
                               (time.time(), len(entries))).lastrowid
            db.executemany("INSERT OR IGNORE INTO blobs (sha, batch) VALUES (?, ?)",
                           [(sha, batch) for sha, _ in entries])
            for chunk in _chunks([sha for sha, _ in entries]):
                marks = ",".join("?" * len(chunk))
                self._remember(db.execute(f"SELECT sha, id FROM blobs WHERE sha IN ({marks})", chunk))  # noqa: S608
            postings: defaultdict[str, list[int]] = defaultdict(list)
            for sha, names in entries:
                rowid = self._ids[sha]
                for name in names:
                    postings[name].append(rowid)
            db.executemany("INSERT INTO postings (name, batch, blobs) VALUES (?, ?, ?)",
                           ((name, batch, array("q", postings[name]).tobytes()) for name in sorted(postings)))
        self._evict(db, keep=batch)

    def blobs_with(self, name: str) -> list[str]:
        found: set[str] = set(self._unstored.get(name, ()))
        for (packed,) in self._db().execute("SELECT blobs FROM postings WHERE name = ?", (name,)):
            ids = array("q")
            ids.frombytes(packed)
            found.update(sha for rowid in ids if (sha := self._shas.get(rowid)) is not None)
        return sorted(found)

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
        try:
            with db:
                db.execute("UPDATE blobs SET defs = ? WHERE sha = ?", (encode_definitions(definitions), blob))
        except sqlite3.OperationalError as exc:  # only a cache: the next review parses again
            log.warning("context index not updated: %s", exc)

    def count(self) -> int:
        return int(self._db().execute("SELECT count(*) FROM blobs").fetchone()[0])

    def _evict(self, db: sqlite3.Connection, keep: int | None) -> None:
        """Least recently used batches go first, until a tenth of the bound is free (so eviction is rare)."""
        total = self.count()
        if total <= self.max_blobs:
            return
        with db:
            db.execute("BEGIN IMMEDIATE")
            for batch, size in db.execute("SELECT id, size FROM batches ORDER BY used, id").fetchall():
                if total <= self.max_blobs * 0.9:
                    break
                if batch == keep:
                    continue  # what this review just indexed: it is about to be used
                db.execute("DELETE FROM postings WHERE batch = ?", (batch,))
                db.execute("DELETE FROM blobs WHERE batch = ?", (batch,))
                db.execute("DELETE FROM batches WHERE id = ?", (batch,))
                total -= size
