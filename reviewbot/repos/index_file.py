"""The context index's SQLite file: private (0700 folder, 0600 files, WAL included), one connection per thread, and a
new file when the old one turns out corrupt."""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from reviewbot.review.context.store import INDEX_FORMAT
from reviewbot.state.private_files import FILE_MODE, private_dir, tighten

log = logging.getLogger(__name__)
_SIDE_FILES = ("-wal", "-shm", "-journal")
# Closing any descriptor of a file drops every POSIX lock this process holds on it, SQLite's included ("How To
# Corrupt An SQLite Database File", 2.2): opening the database file to set its mode while another thread's connection
# held a lock made that connection fail with "disk I/O error" (a worker's finishing job, two audits at once). So the
# file is opened only when this process creates it, and no connection is made meanwhile.
_CONNECTING = threading.Lock()


def corrupt(exc: sqlite3.DatabaseError) -> bool:
    """A broken file ("file is not a database", "database disk image is malformed"), which only a new file mends,
    as opposed to a busy or full one (OperationalError), which the next review may find well again."""
    name = getattr(exc, "sqlite_errorname", None)
    if name is None:  # raised by the module itself, not by SQLite
        return type(exc) is sqlite3.DatabaseError
    return str(name).startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))


def generation(name: str) -> int | None:
    """0 for `index-v<format>.sqlite`, g for `index-v<format>.<g>.sqlite`; None for side files and other formats."""
    prefix, suffix = f"index-v{INDEX_FORMAT}", ".sqlite"
    if not name.startswith(prefix) or not name.endswith(suffix):
        return None
    middle = name[len(prefix):-len(suffix)]  # "" or ".<g>"
    if not middle:
        return 0
    return int(middle[1:]) if middle.startswith(".") and middle[1:].isdigit() else None


def file_name(gen: int) -> str:
    return f"index-v{INDEX_FORMAT}.sqlite" if gen == 0 else f"index-v{INDEX_FORMAT}.{gen}.sqlite"


class IndexFile:
    """The newest generation of the index file under `root`. A corrupt file is never replaced under its own name:
    a worker that still has it open deletes `<name>-wal` by name when it closes, which would take the new file's
    WAL with it. So `renew` starts generation g+1 and deletes the files of the older ones (open connections keep
    them alive until they close); files of another format are deleted too, so a format change rebuilds."""

    def __init__(self, root: Path, schema: str, timeout: float) -> None:
        self.root = root
        self.schema = schema
        self.timeout = timeout
        self._local = threading.local()
        try:
            private_dir(root)
            tighten(root)  # files an older version left 0644 (and their folder 0755)
        except OSError as exc:  # an unusable data dir: connecting fails too, and the review goes on without
            log.warning("context index folder not usable: %s", exc)
        self.path = root / file_name(self._newest())
        self._delete(lambda gen: gen is None or gen < (generation(self.path.name) or 0))

    def db(self) -> sqlite3.Connection:
        """This thread's connection to the current generation (reopened after a renewal)."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is not None and self._local.path == self.path:
            return db
        if db is not None:
            db.close()
            self._local.db = None
        self._local.path = path = self.path
        with _CONNECTING:
            _private(path)
            db = sqlite3.connect(path, timeout=self.timeout, isolation_level=None)
        try:
            self._wal(db)
            db.execute("PRAGMA synchronous=NORMAL")  # a crash loses at most recent entries, which are rebuilt
            db.execute("PRAGMA cache_size=-32000")  # 32 MB of pages: a first review writes a large batch
            db.executescript(self.schema)
        except sqlite3.DatabaseError:
            db.close()
            raise
        self._local.db = db
        return db

    def _wal(self, db: sqlite3.Connection) -> None:
        """WAL mode, waiting out another worker that is switching the new file at the same moment: SQLite answers
        that switch's lock at once ("database is locked") instead of calling the busy handler."""
        deadline, delay = time.monotonic() + self.timeout, 0.01
        while True:
            try:
                db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if getattr(exc, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    def renew(self) -> None:
        """The file this thread used is corrupt: move on to a new generation, unless another worker did already."""
        failed = generation(getattr(self._local, "path", self.path).name) or 0
        newest = self._newest()
        self.path = self.root / file_name(max(newest, failed + 1))
        if newest <= failed:
            log.warning("the context index %s is corrupt; a new one is built", file_name(failed))
            self._delete(lambda gen: gen is not None and gen <= failed)

    def _newest(self) -> int:
        found = [g for p in self.root.glob(f"index-v{INDEX_FORMAT}*.sqlite") if (g := generation(p.name)) is not None]
        return max(found, default=0)

    def _delete(self, doomed: Callable[[int | None], bool]) -> None:
        try:
            for path in self.root.glob("index-v*.sqlite*"):
                base = next((path.name[:-len(s)] for s in _SIDE_FILES if path.name.endswith(s)), path.name)
                if doomed(generation(base)):
                    path.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("old context index files not deleted: %s", exc)


def _private(path: Path) -> None:
    """The database file 0600 before SQLite makes its WAL and shared-memory files (they take its mode): created
    empty when missing (O_EXCL: a file this process opens here has no connection yet), else chmod, which takes no
    descriptor and so drops no lock."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        os.chmod(path, FILE_MODE)
        return
    try:
        os.fchmod(fd, FILE_MODE)  # the umask narrows a new file's mode
    finally:
        os.close(fd)
