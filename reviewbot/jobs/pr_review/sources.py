"""Where a review's code comes from: the cached base tree (and its directory for the tools), or the contents API."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from reviewbot.app.port import GitHubPort, PullInfo
from reviewbot.errors import GitHubError, PermanentError
from reviewbot.repos.cache import DirSnapshot, RepoCache
from reviewbot.review.context.rulesfiles import near
from reviewbot.review.context.snapshot import MemorySnapshot, Snapshot
from reviewbot.review.diff.parse import ParsedDiff

if TYPE_CHECKING:
    from reviewbot.settings import Settings

log = logging.getLogger(__name__)
MAX_CONTEXT_FILES = 60
MAX_RULES_FILES = 40
MAX_ARCHIVE_BYTES = 500_000_000  # compressed; a bigger repository is reviewed with the contents-API fallback


async def base_snapshot(settings: Settings, port: GitHubPort, repo: str, pull: PullInfo,
                         diff: ParsedDiff) -> tuple[Snapshot, Path | None]:
    """The base tree from the repository cache (one tarball per base commit, reused by every re-review), leased
    for the job's try, and its directory for the tools; without it (archive refused or too big), the changed files
    through the contents API and no tools."""
    cache = RepoCache(settings.data_dir / "repos", settings.repo_cache_mb * 1_000_000)

    async def download(dest: Path) -> None:
        await port.download_tarball(repo, pull.base_sha, dest, MAX_ARCHIVE_BYTES)

    try:
        root = await cache.checkout_for_job(repo, pull.base_sha, download)
    except (PermanentError, OSError) as exc:  # OSError: the data dir is full or not writable
        log.warning("repository archive unavailable, using the contents API", extra={"repo": repo, "error": str(exc)})
        files = await base_files(port, repo, pull, diff)
        return MemorySnapshot({**await rules_files(port, repo, pull, diff), **files}), None
    return DirSnapshot(root), root


async def rules_files(port: GitHubPort, repo: str, pull: PullInfo, diff: ParsedDiff) -> dict[str, str]:
    """Without the archive, the team's rules files still apply: the tree lists them, the contents API reads the
    ones near the change (base commit, like everything else)."""
    try:
        paths = near(await port.list_tree(repo, pull.base_sha), [f.path for f in diff.files])
    except GitHubError as exc:
        log.warning("repository tree unavailable: no rules files", extra={"repo": repo, "error": str(exc)})
        return {}
    return await _read(port, repo, pull.base_sha, paths[:MAX_RULES_FILES])


async def base_files(port: GitHubPort, repo: str, pull: PullInfo, diff: ParsedDiff) -> dict[str, str]:
    """Base versions of the changed files: stable across pushes, so the prompt prefix stays cacheable."""
    wanted = [f for f in diff.files if f.status != "added" and not f.binary and f.old_path][:MAX_CONTEXT_FILES]
    return await _read(port, repo, pull.base_sha, [f.old_path for f in wanted if f.old_path])


async def _read(port: GitHubPort, repo: str, sha: str, paths: list[str]) -> dict[str, str]:
    limit = asyncio.Semaphore(8)

    async def one(path: str) -> tuple[str, str | None]:
        async with limit:
            return path, await port.get_file(repo, path, sha)

    results = await asyncio.gather(*(one(p) for p in paths))
    return {path: text for path, text in results if text is not None}
