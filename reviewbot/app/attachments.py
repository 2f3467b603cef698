"""Downloading an image attached to a PR description, with the installation token, bounded in bytes."""

from __future__ import annotations

import asyncio
import urllib.parse

import requests

from reviewbot.app.requester import Requester
from reviewbot.errors import GitHubError, GitHubRetryable


async def download_attachment(http: Requester, url: str, max_bytes: int) -> tuple[str, bytes]:
    """(content type, bytes) of an attachment; over `max_bytes` stops reading and raises GitHubError (413).

    GitHub answers attachment URLs with a redirect to short-lived signed storage URLs; `requests` drops the
    Authorization header when a redirect leaves the host, so the token only ever goes to GitHub."""
    if urllib.parse.urlsplit(url).scheme not in ("https", "http"):
        raise GitHubError(f"not an http(s) URL: {url[:100]}", status=400)
    auth = await http.credentials.auth()
    token = getattr(auth, "token", None)
    headers = {"Accept": "image/*"} | ({"Authorization": f"token {token}"} if token else {})
    return await asyncio.to_thread(_get, url, headers, max_bytes, float(http.timeout))


def _get(url: str, headers: dict[str, str], max_bytes: int, timeout: float) -> tuple[str, bytes]:
    try:
        with requests.get(url, headers=headers, stream=True, timeout=timeout, allow_redirects=True) as response:
            if response.status_code == 429 or response.status_code >= 500:
                raise GitHubRetryable(f"image download failed (HTTP {response.status_code})",
                                      status=response.status_code)
            if response.status_code != 200:
                raise GitHubError(f"image download failed (HTTP {response.status_code})", status=response.status_code)
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise GitHubError(f"{int(declared):,} bytes is over the limit ({max_bytes:,})", status=413)
            data = bytearray()
            for chunk in response.iter_content(chunk_size=65_536):
                data += chunk
                if len(data) > max_bytes:
                    raise GitHubError(f"over the limit of {max_bytes:,} bytes", status=413)
            return str(response.headers.get("content-type") or ""), bytes(data)
    except requests.RequestException as exc:
        raise GitHubRetryable(f"image download failed: {type(exc).__name__}") from None
