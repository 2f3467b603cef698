"""The repository cache: one extracted tree per (repository, commit) under the data dir, bounded, evicted LRU."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import shutil
import time
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from reviewbot.errors import RetryableError
from reviewbot.repos import leases
from reviewbot.repos.dirsnapshot import DirSnapshot
from reviewbot.repos.safetar import Extracted, Limits, extract
from reviewbot.state.private_files import private_dir, write_private

__all__ = ["DirSnapshot", "RepoCache"]

DEFAULT_MAX_BYTES = 2_000_000_000
MARKER = ".complete"  # written last: a tree without it is half-extracted and never used
LEASE = ".lease"  # beside the tree: shared while a job reads it, exclusive while eviction deletes it
LEASE_TRIES = 5
_SHA = re.compile(r"^[0-9a-fA-F]{7,64}$")

Download = Callable[[Path], Awaitable[None]]  # writes the archive of one commit to the given path
# Shared by every RepoCache of the process (jobs make their own); an entry lives while someone holds its lock.
_LOCKS: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()


class RepoCache:
    """Trees at `root/<repo>/<sha>/tree`; `max_bytes` bounds the whole cache (least recently used goes first)."""

    def __init__(self, root: Path, max_bytes: int = DEFAULT_MAX_BYTES, limits: Limits | None = None) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self.limits = limits or Limits()

    def entry(self, repo: str, sha: str) -> Path:
        """Where a commit's tree lives; names are derived, never taken from the archive."""
        slug = re.sub(r"[^A-Za-z0-9_.-]", "_", repo)[:80] + "-" + hashlib.sha256(repo.encode()).hexdigest()[:8]
        name = sha.lower() if _SHA.match(sha) else hashlib.sha256(sha.encode()).hexdigest()
        return self.root / slug / name

    def cached(self, repo: str, sha: str) -> Path | None:
        entry = self.entry(repo, sha)
        marker = entry / MARKER
        if not marker.exists():
            return None
        _touch(marker)  # LRU: a use counts as recent
        return entry / "tree"

    async def checkout(self, repo: str, sha: str, download: Download) -> Path:
        """The tree of `repo` at `sha`, downloaded and extracted once, then reused by every review."""
        if (tree := self.cached(repo, sha)) is not None:
            return tree
        key = str(self.entry(repo, sha))
        lock = _LOCKS.get(key) or _LOCKS.setdefault(key, asyncio.Lock())
        async with lock, self._across_processes(key):  # jobs of one process, then workers sharing the data dir
            if (tree := self.cached(repo, sha)) is not None:
                return tree
            incoming = self._incoming()
            try:
                archive = incoming / "archive.tar.gz"
                await download(archive)
                tree = await asyncio.to_thread(self._install, repo, sha, incoming, archive)
            finally:
                shutil.rmtree(incoming, ignore_errors=True)
        await asyncio.to_thread(self.evict, keep=tree.parent)
        return tree

    @contextlib.asynccontextmanager
    async def leased(self, repo: str, sha: str, download: Download) -> AsyncIterator[Path]:
        """`checkout`, with the tree leased until the block ends: eviction, in any worker on this machine, leaves
        it alone (a long chunk job reads it for minutes); the lease lapses with the process that holds it."""
        for _ in range(LEASE_TRIES):
            tree = await self.checkout(repo, sha, download)
            async with leases.shared(tree.parent / LEASE) as held:
                if held and (tree.parent / MARKER).exists():  # not evicted between the checkout and the lease
                    yield tree
                    return
        raise RetryableError(f"the cached tree of {sha[:12]} was evicted {LEASE_TRIES} times before it could be "
                             "leased (the repository cache is too small for the work at hand)")

    async def checkout_for_job(self, repo: str, sha: str, download: Download) -> Path:
        """`checkout`, leased until the running job's try ends when there is one: a review reads its base tree
        through the whole run (the model's tools too), so another worker's eviction must leave it alone."""
        held = leases.holds()
        if held is None:
            return await self.checkout(repo, sha, download)
        return await held.enter_async_context(self.leased(repo, sha, download))

    def _across_processes(self, key: str) -> contextlib.AbstractAsyncContextManager[None]:
        """A lock per commit, so two workers on one machine download and extract it once (the second finds the
        first's tree); its file is removed by its holder, so none is left per commit ever checked out."""
        return leases.exclusive(private_dir(self.root / ".locks") / hashlib.sha256(key.encode()).hexdigest()[:32])

    def checkout_sync(self, repo: str, sha: str, write_archive: Callable[[Path], None]) -> Path:
        """The same for the CLI, whose archive comes from `git archive`."""
        if (tree := self.cached(repo, sha)) is not None:
            return tree
        incoming = self._incoming()
        try:
            archive = incoming / "archive.tar"
            write_archive(archive)
            tree = self._install(repo, sha, incoming, archive)
        finally:
            shutil.rmtree(incoming, ignore_errors=True)
        self.evict(keep=tree.parent)
        return tree

    def _incoming(self) -> Path:
        private_dir(self.root)
        path = private_dir(self.root / ".incoming") / uuid.uuid4().hex
        path.mkdir(mode=0o700)  # private source code: this user only
        return path

    def _install(self, repo: str, sha: str, incoming: Path, archive: Path) -> Path:
        stats: Extracted = extract(archive, incoming / "tree", self.limits)
        archive.unlink()
        write_private(incoming / "meta.json", json.dumps({"repo": repo, "sha": sha, "files": stats.files,
                                                        "bytes": stats.bytes, "truncated": stats.truncated,
                                                        "skipped": stats.skipped}))
        entry = self.entry(repo, sha)
        private_dir(entry.parent)
        if entry.exists() and not (entry / MARKER).exists():
            shutil.rmtree(entry, ignore_errors=True)  # left by an extraction that crashed half way
        try:
            os.rename(incoming, entry)
        except OSError:
            if not (entry / MARKER).exists():  # another process won the race and finished: use theirs
                raise
        _touch(entry / MARKER)
        return entry / "tree"

    def evict(self, keep: Path | None = None) -> list[Path]:
        """Delete least recently used trees until the cache fits `max_bytes`; never the one just used, nor one a
        job holds a lease on. Lock files nobody holds are removed on the way."""
        entries: list[tuple[float, int, Path]] = []
        for marker in self.root.glob(f"*/*/{MARKER}"):
            try:
                meta = json.loads((marker.parent / "meta.json").read_text())
                entries.append((marker.stat().st_mtime, int(meta.get("bytes", 0)), marker.parent))
            except (OSError, ValueError):
                continue
        total = sum(size for _, size, _ in entries)
        removed: list[Path] = []
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            if (keep is not None and path == keep) or (lease := leases.unless_leased(path / LEASE)) is None:
                continue
            try:
                (path / MARKER).unlink(missing_ok=True)  # first, so no reader picks up a tree being deleted
                # Moved aside before the slow delete: a new extraction of the same commit never meets it.
                trash = self._incoming()
                try:
                    os.replace(path, trash / "old")
                except OSError:
                    shutil.rmtree(path, ignore_errors=True)
                shutil.rmtree(trash, ignore_errors=True)
            finally:
                os.close(lease)
            total -= size
            removed.append(path)
        leases.sweep(self.root / ".locks")
        return removed


def _touch(marker: Path) -> None:
    """Stamp with the precise clock: file systems stamp with a coarse one, which ties quick successive uses."""
    now = time.time_ns()
    marker.touch(mode=0o600)
    os.utime(marker, ns=(now, now))
