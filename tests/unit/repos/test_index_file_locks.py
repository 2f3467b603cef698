"""A new connection to the index's SQLite file never drops the locks of this process's other connections: closing any
descriptor of a file releases every POSIX lock the process holds on it, and another worker that then believed it was
the last user deleted the WAL under them ("disk I/O error" in a worker's finishing job while two audits ran)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from reviewbot.repos.index_file import IndexFile

SCHEMA = "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT);"
# Another worker: opens the file, writes one row, closes. The last connection to close checkpoints the WAL and
# deletes it with the shared-memory file; it may do so only when no other connection holds the file's shared lock.
OTHER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=5, isolation_level=None)
db.execute("INSERT INTO t (v) VALUES ('other')")
db.close()
"""


def test_a_second_thread_connecting_keeps_the_first_connections_lock(tmp_path: Path) -> None:
    index = IndexFile(tmp_path / "index", SCHEMA, timeout=5.0)
    first = index.db()
    first.execute("INSERT INTO t (v) VALUES ('first')")
    held = first.execute("SELECT count(*) FROM t").fetchone()  # this connection holds the file open, in WAL mode
    assert held == (1,)
    done = threading.Event()

    def connect() -> None:  # another job's thread opens its own connection to the same file
        index.db().execute("SELECT count(*) FROM t").fetchone()
        done.set()

    thread = threading.Thread(target=connect)
    thread.start()
    thread.join()
    assert done.is_set()
    path = index.path
    subprocess.run([sys.executable, "-c", OTHER, str(path)], check=True, timeout=60)
    # The other worker could not take the file over: its WAL is still there, and this connection goes on working.
    assert Path(f"{path}-wal").exists()
    first.execute("INSERT INTO t (v) VALUES ('after')")
    assert first.execute("SELECT v FROM t ORDER BY k").fetchall() == [("first",), ("other",), ("after",)]
    first.close()
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone() == ("ok",)
