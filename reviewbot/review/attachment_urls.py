"""Which URLs are GitHub attachments, whatever the client does with them: hosts and path shapes (pure)."""

from __future__ import annotations

import urllib.parse

ATTACHMENT_HOSTS = frozenset({"user-images.githubusercontent.com", "private-user-images.githubusercontent.com"})


def path_refusal(path: str) -> str:
    """Why a URL path is refused before any matching: a client would remove dot segments (`/a/../b` is `/b`) and a
    server may decode `%2F`, so `/user-attachments/assets/../../<anything>` would reach any path of the host."""
    lowered = path.lower()
    if "\\" in path or any(code in lowered for code in ("%2f", "%5c", "%2e", "%00")):
        return "an encoded slash, dot or backslash in the path"
    if any(segment in (".", "..") for segment in path.split("/")):
        return "a dot segment in the path"
    return ""


def is_github_com(web_url: str) -> bool:
    """github.com itself; anything else is an Enterprise Server, which never serves *.githubusercontent.com."""
    return (urllib.parse.urlsplit(web_url).hostname or "").lower() == "github.com"
