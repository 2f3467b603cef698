"""Repository contents: single files, the tree, the archive and description images."""

from __future__ import annotations

import asyncio
import logging
import urllib.parse
from pathlib import Path

import requests

from reviewbot.app.attachments import download_attachment
from reviewbot.app.port.base import PortBase, _q
from reviewbot.errors import GitHubError, GitHubRetryable, PermanentError

log = logging.getLogger("reviewbot.app.port")
# The contents API serves files of 1-100 MB only as raw (the default JSON has `"content": ""` for them).
RAW_MEDIA_TYPE = "application/vnd.github.raw+json"


class ContentsAPI(PortBase):
    """Files, trees and the tarball of a commit; images attached to a description."""

    async def get_file(self, repo: str, path: str, ref: str) -> str | None:
        """A file's text at `ref`; None when it does not exist there, is binary or is over GitHub's 100 MB."""
        url = f"/repos/{_q(repo)}/contents/{urllib.parse.quote(path)}"
        try:
            _, text = await self._http.request("GET", url, what=f"GET {path}@{ref[:12] or 'default'}",
                                               params={"ref": ref} if ref else None,
                                               headers={"Accept": RAW_MEDIA_TYPE}, raw=True)
        except GitHubError as exc:
            # 403 "too large" is GitHub's answer for a file over 100 MB, which no media type serves.
            if exc.status == 404 or (exc.status == 403 and "too large" in str(exc).lower()):
                return None
            raise
        if not isinstance(text, str) or "\0" in text[:8000]:
            return None
        return text

    async def list_tree(self, repo: str, ref: str) -> list[str]:
        """Paths of every file at `ref` (GitHub truncates trees over 100,000 entries; a warning says so)."""
        data = await self._get(f"GET tree {repo}@{ref[:12]}", f"/repos/{_q(repo)}/git/trees/{urllib.parse.quote(ref)}",
                               params={"recursive": "1"})
        if data.get("truncated"):
            log.warning("the repository tree is truncated", extra={"repo": repo})
        return [str(e["path"]) for e in data.get("tree") or [] if e.get("type") == "blob"]

    # ----- repository archive (the context engine reads the base tree from it)
    async def download_tarball(self, repo: str, ref: str, dest: Path, max_bytes: int) -> int:
        """Stream the gzip tarball of `ref` into `dest`; returns its size. GitHub answers 302 to a short-lived
        codeload URL that carries its own token, so the installation token is never sent there."""
        url = f"/repos/{_q(repo)}/tarball/{urllib.parse.quote(ref, safe='')}"
        headers, _ = await self._http.request("GET", url, what=f"GET tarball {repo}@{ref[:12]}")
        location = headers.get("location")
        if not location:
            raise GitHubError(f"GitHub sent no download location for the tarball of {repo}@{ref[:12]}")
        for attempt in range(1, self._http.retry.tries + 1):  # codeload's 5xx, like the API's, are retried
            try:
                size: int = await asyncio.to_thread(_stream_to_file, location, dest, max_bytes)
                return size
            except GitHubRetryable:
                if attempt == self._http.retry.tries:
                    raise
                await asyncio.sleep(self._http.retry.delay(attempt))
        raise AssertionError("unreachable")
    # ----- end of repository archive -------------------------------------------------------------------------------

    async def download_image(self, url: str, max_bytes: int, *, anonymous: bool = False) -> tuple[str, bytes]:
        """An image attached to a PR description: (content type, bytes), with the installation token unless
        `anonymous` (then as any reader without an account would get it)."""
        return await download_attachment(self._http, url, max_bytes, anonymous=anonymous)


def _stream_to_file(url: str, dest: Path, max_bytes: int, timeout: float = 120.0) -> int:
    """Download without holding the archive in memory; over `max_bytes` is a permanent, explained failure."""
    size = 0
    try:
        with requests.get(url, stream=True, timeout=timeout) as response:
            if response.status_code == 429 or response.status_code >= 500:
                raise GitHubRetryable(f"downloading the repository archive failed (HTTP {response.status_code})",
                                      status=response.status_code)
            if response.status_code != 200:
                raise GitHubError(f"downloading the repository archive failed (HTTP {response.status_code})",
                                  status=response.status_code)
            with dest.open("wb") as out:
                for chunk in response.iter_content(chunk_size=1 << 20):
                    size += len(chunk)
                    if size > max_bytes:
                        raise PermanentError(f"the repository archive is over {max_bytes / 1e6:,.0f} MB")
                    out.write(chunk)
    except requests.RequestException as exc:
        raise GitHubRetryable(f"downloading the repository archive failed: {type(exc).__name__}") from None
    return size
