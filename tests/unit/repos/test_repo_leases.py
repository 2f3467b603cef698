"""The repository cache under long jobs: a tree in use is never evicted (its lease lapses with its holder), the
per-commit lock files do not pile up, and a chunk whose files went missing is not counted as audited."""

from __future__ import annotations

import asyncio
import fcntl
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from reviewbot.audit.service_record import AuditRecord, PlannedChunk
from reviewbot.errors import RetryableError
from reviewbot.jobs.audit.chunk_input import chunk_request
from reviewbot.repos.cache import RepoCache
from reviewbot.repos.leases import job_holds
from tests.unit.repos.test_repo_cache import _archive


def download(n: int) -> Callable[[Path], Awaitable[None]]:
    async def write(dest: Path) -> None:
        _archive({f"top/f{n}.txt": b"x" * 1_000}, dest)
    return write


async def test_a_tree_in_use_is_never_evicted_and_is_once_its_lease_ends(tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "repos", max_bytes=2_500)
    async with cache.leased("o/r", "a" * 40, download(1)) as first:
        await cache.checkout("o/r", "b" * 40, download(2))
        await cache.checkout("o/r", "c" * 40, download(3))  # over the bound: the least recent unleased goes
        assert (first / "f1.txt").read_bytes() == b"x" * 1_000
        assert cache.cached("o/r", "b" * 40) is None
    await cache.checkout("o/r", "d" * 40, download(4))  # the lease is over: now `first` is evicted
    assert not first.exists()


async def test_a_review_s_base_tree_is_leased_until_its_job_ends(tmp_path: Path) -> None:
    """A review reads its base tree for its whole run (prompt, then the model's tools): another worker's checkouts
    meanwhile evict other trees, never that one; once the job's try is over, it may go."""
    cache = RepoCache(tmp_path / "repos", max_bytes=2_500)
    async with job_holds():
        base = await cache.checkout_for_job("o/r", "a" * 40, download(1))
        other = RepoCache(tmp_path / "repos", max_bytes=2_500)  # another worker on the machine
        await other.checkout("o/r", "b" * 40, download(2))
        await other.checkout("o/r", "c" * 40, download(3))
        assert (base / "f1.txt").read_bytes() == b"x" * 1_000
    await cache.checkout("o/r", "d" * 40, download(4))
    assert not base.exists()
    outside = await cache.checkout_for_job("o/r", "e" * 40, download(5))  # the CLI: no job, no lease needed
    assert outside.exists()


HOLDER = """
import asyncio, io, sys, tarfile
from pathlib import Path
from reviewbot.repos.cache import RepoCache

async def download(dest: Path) -> None:
    with tarfile.open(dest, "w:gz") as tar:
        info = tarfile.TarInfo("top/f.txt")
        info.size = 1000
        tar.addfile(info, io.BytesIO(b"x" * 1000))

async def main() -> None:
    async with RepoCache(Path(sys.argv[1])).leased("o/r", "e" * 40, download):
        Path(sys.argv[2]).touch()
        await asyncio.sleep(600)  # a long chunk job, killed before it ends

asyncio.run(main())
"""


async def test_a_lease_lapses_when_its_holder_dies(tmp_path: Path) -> None:
    root, leased = tmp_path / "repos", tmp_path / "leased"
    child = await asyncio.create_subprocess_exec(sys.executable, "-c", HOLDER, str(root), str(leased))
    try:
        for _ in range(600):
            if leased.exists() or child.returncode is not None:
                break
            await asyncio.sleep(0.05)
        assert leased.exists()
        cache = RepoCache(root, max_bytes=0)  # everything unleased is over the bound
        assert cache.evict() == [] and cache.cached("o/r", "e" * 40) is not None
    finally:
        if child.returncode is None:
            child.send_signal(signal.SIGKILL)
        await child.wait()
    assert cache.evict() == [cache.entry("o/r", "e" * 40)]


async def test_commit_locks_are_removed_and_old_ones_swept_unless_held(tmp_path: Path) -> None:
    root = tmp_path / "repos"
    cache = RepoCache(root)
    for n in range(5):
        await cache.checkout("o/r", f"{n:040x}", download(n))
    locks = root / ".locks"
    assert sorted(locks.iterdir()) == []
    held = locks / "held"
    (locks / "stale").write_text("")  # left by an earlier version, or a worker that died
    fd = os.open(held, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another worker extracting right now
        cache.evict()
        assert sorted(p.name for p in locks.iterdir()) == ["held"]
    finally:
        os.close(fd)


def test_a_chunk_whose_files_went_missing_is_not_rendered_as_audited() -> None:
    record = AuditRecord(id="a", installation_id=1, repo="acme/w", branch="main", sha="0" * 40, paths=[],
                         status="running", created=0.0, model="m", config={}, estimate_usd=0.0, blobs={},
                         chunks=[PlannedChunk(0, ["app/db.py", "app/gone.py"], 10, 0.0)])
    plan = {"prefix": {"system": "s", "head": "h"}, "context": [[]]}
    files = {"app/db.py": "import sqlite3\n"}
    with pytest.raises(RetryableError, match=r"app/gone\.py"):
        chunk_request(record, plan, 0, files.get)
