"""Downloading an image attached to a PR description: GitHub's own hosts only, every redirect checked, bounded."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass

import requests

from reviewbot.app.requester import Requester
from reviewbot.errors import GitHubError, GitHubRetryable
from reviewbot.review.attachment_urls import ATTACHMENT_HOSTS, path_refusal

MAX_REDIRECTS = 5
# Where github.com sends an attachment: signed storage URLs on its image hosts. An Enterprise Server serves its
# attachments itself (or from its media subdomain with subdomain isolation), never from *.githubusercontent.com.
IMAGE_HOSTS = ATTACHMENT_HOSTS | {"objects.githubusercontent.com"}
Resolve = Callable[[str], list[str]]  # a host name → its addresses


def addresses(host: str) -> list[str]:
    return sorted({str(info[4][0]) for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)})


@dataclass(frozen=True)
class Hosts:
    """The GitHub host the bot is configured for (it gets the token) and the image hosts it may be sent to."""

    home: str  # netloc of the web host: github.com, or the Enterprise Server's host (which also serves the API)
    scheme: str
    github_com: bool

    @classmethod
    def for_api(cls, api_url: str) -> Hosts:
        parts = urllib.parse.urlsplit(api_url)
        github_com = (parts.hostname or "").lower() == "api.github.com"
        return cls("github.com" if github_com else parts.netloc.lower(), parts.scheme, github_com)

    def is_home(self, url: str) -> bool:
        parts = urllib.parse.urlsplit(url)
        return parts.netloc.lower() == self.home and parts.scheme == self.scheme

    def refusal(self, url: str, *, redirect: bool) -> str:
        """Why `url` is not fetched (the description's URL, or where a response sent us); "" when it may be."""
        parts = urllib.parse.urlsplit(url)
        if odd := path_refusal(parts.path):
            return odd
        if self.is_home(url):
            return ""
        host = (parts.hostname or "").lower()
        if parts.scheme != "https" or parts.username or parts.port not in (None, 443):
            return "not an https URL of a GitHub image host"
        if self.github_com:
            return "" if host in (IMAGE_HOSTS if redirect else ATTACHMENT_HOSTS) else "not a GitHub image host"
        media = "media." + self.home.split(":")[0]
        return "" if redirect and host == media else "not this GitHub Enterprise Server's host"

    def check_address(self, url: str, resolve: Resolve) -> None:
        """Any host but the configured one must resolve to public addresses only: no loopback, private, link-local
        (cloud metadata) or reserved address is ever asked, whatever a redirect or a resolver says."""
        if self.is_home(url):
            return
        host = urllib.parse.urlsplit(url).hostname or ""
        try:
            found = resolve(host)
        except OSError:
            raise GitHubRetryable("image download failed: the image host could not be resolved") from None
        for text in found or ["0.0.0.0"]:  # noqa: S104 (nothing resolved counts as the unspecified address)
            address = ipaddress.ip_address(text.split("%")[0])
            mapped = getattr(address, "ipv4_mapped", None)
            if not address.is_global or (mapped is not None and not mapped.is_global):
                raise GitHubError("image host resolves to a private, loopback or link-local address", status=400)


async def download_attachment(http: Requester, url: str, max_bytes: int, *, anonymous: bool = False,
                              resolve: Resolve = addresses) -> tuple[str, bytes]:
    """(content type, bytes) of an attachment; over `max_bytes` stops reading and raises GitHubError (413).

    The token goes only to the configured GitHub host; redirects (GitHub answers with signed storage URLs) are
    followed one by one, each to a GitHub image host with a public address, and lose the token. `anonymous` sends
    no token at all: only what anyone may read is answered."""
    hosts = Hosts.for_api(http.api_url)
    if reason := hosts.refusal(url, redirect=False):
        raise GitHubError(f"not fetched: {reason}", status=400)
    token = None if anonymous else getattr(await http.credentials.auth(), "token", None)
    return await asyncio.to_thread(_get, url, hosts, token, max_bytes, float(http.timeout), resolve)


def _get(url: str, hosts: Hosts, token: str | None, max_bytes: int, timeout: float,
         resolve: Resolve) -> tuple[str, bytes]:
    for _ in range(MAX_REDIRECTS + 1):
        hosts.check_address(url, resolve)
        headers = {"Accept": "image/*"} | ({"Authorization": f"token {token}"} if token and hosts.is_home(url) else {})
        try:
            with requests.get(url, headers=headers, stream=True, timeout=timeout, allow_redirects=False) as response:
                if response.is_redirect:
                    target = urllib.parse.urljoin(url, response.headers.get("location", ""))
                    if reason := hosts.refusal(target, redirect=True):
                        raise GitHubError(f"redirected elsewhere: {reason}", status=400)
                    url = target
                    continue
                return _body(response, max_bytes)
        except requests.RequestException as exc:
            raise GitHubRetryable(f"image download failed: {type(exc).__name__}") from None
    raise GitHubError(f"image download failed: more than {MAX_REDIRECTS} redirects", status=400)


def _body(response: requests.Response, max_bytes: int) -> tuple[str, bytes]:
    if response.status_code == 429 or response.status_code >= 500:
        raise GitHubRetryable(f"image download failed (HTTP {response.status_code})", status=response.status_code)
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
