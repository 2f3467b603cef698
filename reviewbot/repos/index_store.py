"""The context index kept between reviews: one SQLite file (WAL) per format under the data dir, bounded, LRU."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from reviewbot.repos.index_file import IndexFile, corrupt
from reviewbot.review.context.identifiers import Names
from reviewbot.review.context.store import decode_definitions, encode_definitions
from reviewbot.review.context.symbols import Definition

log = logging.getLogger(__name__)
T = TypeVar("T")
DEFAULT_MAX_BLOBS = 400_000  # about 60 Django checkouts' worth of distinct files; a few GB at most
# A batch used (written, or found by a review) this recently is never evicted: a review running now relies on it.
# Longer than a review's time limit; while every batch is that young the store may pass its bound for a while.
EVICTION_GRACE_S = 3_600.0
_CHUNK = 500  # SQLite's bound-parameter limit is 999 on old builds
# A batch is the blobs one review indexed; eviction is per batch. The names of a blob are one row of an FTS5
# table (rowid = the blob's id): SQLite inverts them into postings in C, which a first review of a large repository
# spent most of its indexing time doing in Python. FTS5 folds case, so each capital letter is written as a
# punctuation mark the tokenizer keeps inside words (`_CASE`): `Model` and `model` stay two words.
# Parses are per blob *and* language: the same bytes under `.py` and `.js` parse differently. Row ids are never
# reused (AUTOINCREMENT), so a row left by an evicted batch can never name another blob.
_MARKS = "!#$%&()*+,-./:;<=>?@[]^`{|}~"[:26]  # not quotes: they delimit the tokenizer's options and the query
_CASE = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", _MARKS)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (id INTEGER PRIMARY KEY AUTOINCREMENT, used REAL NOT NULL, size INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS batches_used ON batches (used);
CREATE TABLE IF NOT EXISTS blobs (id INTEGER PRIMARY KEY AUTOINCREMENT, sha TEXT NOT NULL UNIQUE,
                                  batch INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS blobs_batch ON blobs (batch);
CREATE TABLE IF NOT EXISTS parses (blob INTEGER NOT NULL, language TEXT NOT NULL, defs TEXT NOT NULL,
                                   PRIMARY KEY (blob, language)) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS words USING fts5(names, detail=none,
                                                   tokenize="unicode61 remove_diacritics 0 tokenchars '_MARKS'");
""".replace("MARKS", _MARKS)


def _is_identifier(name: str) -> bool:
    """What the index stores as a name: ASCII letters, digits and `_`, not starting with a digit."""
    return bool(name) and name.isascii() and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _joined(names: Iterable[str]) -> str:
    """A blob's names as one row of the words table (a Names object is already that string)."""
    return names.joined if isinstance(names, Names) else " ".join(names)


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i:i + _CHUNK]


class SqliteIndex:
    """An IndexStore in `root/index-v<format>.sqlite`. Concurrent workers share it safely: WAL readers never
    block, writers wait their turn (busy timeout), blobs are INSERT OR IGNORE (two workers indexing the same
    content leave harmless duplicate postings). The store never stops a review: a corrupt file is replaced by a
    new one (`index_file.py`), a busy or full one leaves this review's answers in memory. Answers cover the blobs
    this instance was asked about (one review's)."""

    def __init__(self, root: Path, max_blobs: int = DEFAULT_MAX_BLOBS, timeout: float = 60.0,
                 clock: Callable[[], float] = time.time, grace_s: float = EVICTION_GRACE_S) -> None:
        self.max_blobs = max_blobs
        self.clock = clock
        self.grace_s = grace_s
        self._file = IndexFile(root, _SCHEMA, timeout)  # timeout: how long a writer waits for another's transaction
        self._ids: dict[str, int] = {}  # blob sha -> row id, for the blobs of this review
        self._shas: dict[int, str] = {}
        self._unstored: dict[str, set[str]] = {}  # name -> blobs, when the store could not be written

    @property
    def path(self) -> Path:
        return self._file.path

    def _guarded(self, work: Callable[[sqlite3.Connection], T], fallback: Callable[[], T]) -> T:
        """`work` on the store. A corrupt file is replaced and `work` tried once more on the new one; any other
        failure (a full disk, a lock held too long) leaves this review with `fallback` (what it has in memory)."""
        for attempt in (1, 2):
            try:
                return work(self._file.db())
            except (sqlite3.DatabaseError, OSError) as exc:  # OSError: the file could not be made (a read-only disk)
                if attempt == 1 and isinstance(exc, sqlite3.DatabaseError) and corrupt(exc):
                    self._file.renew()
                    self._ids.clear()  # row ids of the old file
                    self._shas.clear()
                    continue
                log.warning("context index not used: %s", exc)
                break
        return fallback()

    def _remember(self, rows: Iterable[tuple[str, int]]) -> None:
        for sha, rowid in rows:
            self._ids[sha] = rowid
            self._shas[rowid] = sha

    def known(self, blobs: Iterable[str]) -> set[str]:
        wanted = sorted(blobs)

        def work(db: sqlite3.Connection) -> set[str]:
            found: dict[str, int] = {}  # sha -> its batch
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                rows = db.execute(f"SELECT sha, id, batch FROM blobs WHERE sha IN ({marks})", chunk).fetchall()  # noqa: S608
                self._remember((sha, rowid) for sha, rowid, _ in rows)
                found.update((sha, batch) for sha, _, batch in rows)
            gone = self._stamp(db, set(found.values()))
            return {sha for sha, batch in found.items() if batch not in gone}

        return self._guarded(work, set)

    def _stamp(self, db: sqlite3.Connection, batches: set[int]) -> set[int]:
        """Mark what this review found as just used, so eviction keeps it past the review; the batches another
        worker evicted since they were read are returned (their blobs are indexed again)."""
        try:
            with db:
                db.execute("BEGIN IMMEDIATE")
                stamped = {b for b in sorted(batches)
                           if db.execute("UPDATE batches SET used = ? WHERE id = ?", (self.clock(), b)).rowcount}
            return batches - stamped
        except sqlite3.OperationalError as exc:  # a lock held too long: the stamp only steers eviction
            log.warning("context index not updated: %s", exc)
            return set()

    def add_names(self, entries: Sequence[tuple[str, Iterable[str]]]) -> None:
        if not entries:
            return
        if self._guarded(lambda db: self._add_names(db, entries), lambda: False):
            self._guarded(self._evict, lambda: None)
        else:  # a full disk or a lock held too long: this review goes on
            self._remember_unstored(entries)

    def _remember_unstored(self, entries: Sequence[tuple[str, Iterable[str]]]) -> None:
        """Keep this review's answers in memory when the store cannot take them."""
        for sha, names in entries:
            rowid = self._ids.get(sha) or -len(self._shas) - 1
            self._remember([(sha, rowid)])
            for name in names:
                self._unstored.setdefault(name, set()).add(sha)

    def _add_names(self, db: sqlite3.Connection, entries: Sequence[tuple[str, Iterable[str]]]) -> bool:
        with db:
            db.execute("BEGIN IMMEDIATE")
            batch = db.execute("INSERT INTO batches (used, size) VALUES (?, ?)",
                               (self.clock(), len(entries))).lastrowid
            shas = [sha for sha, _ in entries]
            before: set[str] = set()  # indexed by another worker meanwhile: its words are there already
            for chunk in _chunks(shas):
                marks = ",".join("?" * len(chunk))
                before.update(sha for (sha,) in db.execute(f"SELECT sha FROM blobs WHERE sha IN ({marks})", chunk))  # noqa: S608
            db.executemany("INSERT OR IGNORE INTO blobs (sha, batch) VALUES (?, ?)", [(sha, batch) for sha in shas])
            for chunk in _chunks(shas):
                marks = ",".join("?" * len(chunk))
                self._remember(db.execute(f"SELECT sha, id FROM blobs WHERE sha IN ({marks})", chunk))  # noqa: S608
            fresh = {sha: names for sha, names in entries if sha not in before}
            db.executemany("INSERT INTO words (rowid, names) VALUES (?, ?)",
                           ((self._ids[sha], _joined(names).translate(_CASE)) for sha, names in fresh.items()))
        return True

    def blobs_with(self, name: str) -> list[str]:
        def work(db: sqlite3.Connection) -> set[str]:
            rows = db.execute("SELECT rowid FROM words WHERE words MATCH ?", (f'"{name.translate(_CASE)}"',))
            return {sha for (rowid,) in rows if (sha := self._shas.get(rowid)) is not None}

        # Only identifiers were stored; anything else (a dot, a quote, a non-ASCII letter) is in no blob.
        found: set[str] = self._guarded(work, set) if _is_identifier(name) else set()
        return sorted(found | self._unstored.get(name, set()))

    def definitions(self, blobs: Sequence[str], language: str) -> dict[str, tuple[Definition, ...]]:
        def work(db: sqlite3.Connection) -> dict[str, tuple[Definition, ...]]:
            out = {}
            for chunk in _chunks(list(blobs)):
                marks = ",".join("?" * len(chunk))
                for sha, raw in db.execute(
                        "SELECT blobs.sha, parses.defs FROM blobs JOIN parses ON parses.blob = blobs.id "  # noqa: S608
                        f"WHERE parses.language = ? AND blobs.sha IN ({marks})", (language, *chunk)):
                    out[sha] = decode_definitions(raw)
            return out

        return self._guarded(work, dict)

    def add_definitions(self, blob: str, language: str, definitions: tuple[Definition, ...]) -> None:
        def work(db: sqlite3.Connection) -> None:
            with db:
                db.execute("INSERT OR REPLACE INTO parses (blob, language, defs) SELECT id, ?, ? FROM blobs "
                           "WHERE sha = ?", (language, encode_definitions(definitions), blob))

        self._guarded(work, lambda: None)  # only a cache: the next review parses again

    def count(self) -> int:
        return self._guarded(lambda db: int(db.execute("SELECT count(*) FROM blobs").fetchone()[0]), lambda: 0)

    def _evict(self, db: sqlite3.Connection) -> None:
        """Least recently used batches go first, until a tenth of the bound is free (so eviction is rare); a batch
        used within the grace period stays: a running review wrote it or found its blobs, and needs its postings.
        The count and the choice are made in the deleting transaction, so concurrent writers cannot race it."""
        if int(db.execute("SELECT count(*) FROM blobs").fetchone()[0]) <= self.max_blobs:
            return  # the usual case, without taking the write lock
        with db:
            db.execute("BEGIN IMMEDIATE")
            total = int(db.execute("SELECT count(*) FROM blobs").fetchone()[0])
            recent = self.clock() - self.grace_s
            for batch, size in db.execute("SELECT id, size FROM batches WHERE used < ? ORDER BY used, id",
                                          (recent,)).fetchall():
                if total <= self.max_blobs * 0.9:
                    break
                db.execute("DELETE FROM words WHERE rowid IN (SELECT id FROM blobs WHERE batch = ?)", (batch,))
                db.execute("DELETE FROM parses WHERE blob IN (SELECT id FROM blobs WHERE batch = ?)", (batch,))
                db.execute("DELETE FROM blobs WHERE batch = ?", (batch,))
                db.execute("DELETE FROM batches WHERE id = ?", (batch,))
                total -= size
