"""Advisory file locks for the repository cache, shared by the workers on one machine: a commit's download lock
(removed by its holder, so none piles up), and a cached tree's lease (shared while a job reads the tree, taken
exclusively by eviction). The kernel releases both when their holder dies, so nothing stays held by a dead worker."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import fcntl
import os
from collections.abc import AsyncIterator
from pathlib import Path

POLL_S = 0.05
# A worker job's holds: a lease taken through `hold` lasts until the job's try ends (the job wrapper opens it).
# Outside a job (the CLI, the Action: one process, and nothing else evicts meanwhile) there is none.
_HOLDS: contextvars.ContextVar[contextlib.AsyncExitStack | None] = contextvars.ContextVar("holds", default=None)


@contextlib.asynccontextmanager
async def job_holds() -> AsyncIterator[None]:
    """Run a job's try with a place for its holds, released (in reverse order) when the try ends, however."""
    async with contextlib.AsyncExitStack() as stack:
        token = _HOLDS.set(stack)
        try:
            yield
        finally:
            _HOLDS.reset(token)


def holds() -> contextlib.AsyncExitStack | None:
    """The running job's holds, or None outside a job."""
    return _HOLDS.get()


async def _flock(fd: int, kind: int) -> None:
    """Polled, never blocking the event loop."""
    while True:
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            await asyncio.sleep(POLL_S)


def _still_named(fd: int, path: Path) -> bool:
    """The file we locked is still the one at `path`: its holder may have removed it while we waited."""
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


@contextlib.asynccontextmanager
async def exclusive(path: Path) -> AsyncIterator[None]:
    """Hold the lock file at `path`, then remove it: a waiter that locked the removed file sees it is no longer
    the one named `path` and tries again, so removing never lets two hold the lock."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            await _flock(fd, fcntl.LOCK_EX)
            if not _still_named(fd, path):
                continue
            try:
                yield
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)  # before the close that releases it
            return
        finally:
            os.close(fd)


def sweep(folder: Path) -> int:
    """Remove the lock files nobody holds (left by a version that never removed them, or by a dead worker)."""
    removed = 0
    for path in folder.iterdir() if folder.is_dir() else ():
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if _still_named(fd, path):
                path.unlink(missing_ok=True)
                removed += 1
        except BlockingIOError:
            continue  # held: a worker is downloading that commit
        finally:
            os.close(fd)
    return removed


@contextlib.asynccontextmanager
async def shared(path: Path) -> AsyncIterator[bool]:
    """A lease on the tree whose lease file is `path`; False when the tree is gone (evicted meanwhile)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except FileNotFoundError:
        yield False
        return
    try:
        await _flock(fd, fcntl.LOCK_SH)
        yield _still_named(fd, path)
    finally:
        os.close(fd)


def unless_leased(path: Path) -> int | None:
    """The lease file at `path` taken exclusively (the caller deletes the tree, then closes it); None while a job
    holds a lease."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd
