"""The App's own API, authenticated with its JWT (who we are, installations, webhook deliveries), and the
unauthenticated manifest conversion that creates the App."""

from __future__ import annotations

import dataclasses
import logging
import secrets
import urllib.parse
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from reviewbot.app.credentials import Anonymous, AppCredentials
from reviewbot.app.requester import Requester, RetryPolicy
from reviewbot.errors import GitHubError, GitHubRetryable
from reviewbot.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CreatedApp:
    """What `POST /app-manifests/{code}/conversions` returns that reviewbot keeps."""

    id: int
    slug: str
    name: str
    html_url: str
    client_id: str
    owner: str
    webhook_secret: str = field(repr=False)
    pem: str = field(repr=False)

    @property
    def install_url(self) -> str:
        return f"{self.html_url}/installations/new"


class AppApi:
    """Calls made as the App itself (not an installation); one per command, closed when done."""

    def __init__(self, api_url: str, issuer: str, private_key: str, *, retry: RetryPolicy | None = None,
                 timeout: int = 30) -> None:
        self._http = Requester(api_url, AppCredentials(issuer, private_key), retry=retry, timeout=timeout)

    @classmethod
    def from_settings(cls, settings: Settings, *, timeout: int = 30) -> AppApi:
        settings.require([m for m in settings.missing_for_github() if m != "GITHUB_WEBHOOK_SECRET"], "this command")
        assert settings.github_app_id and settings.github_private_key  # checked just above
        return cls(settings.github_api_url, settings.github_client_id or settings.github_app_id,
                   settings.github_private_key, timeout=timeout)

    def close(self) -> None:
        self._http.close()

    async def get_app(self) -> dict[str, Any]:
        """`GET /app`: the App this key belongs to (proof that the key and the id match)."""
        data = await self._http.request("GET", "/app", what="GET /app")
        return data[1] if isinstance(data[1], dict) else {}

    async def installations(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        async for page in self._http.pages("/app/installations", what="GET installations"):
            items.extend(page)
        return items

    async def repo_installation(self, repo: str) -> int:
        """`GET /repos/{owner}/{repo}/installation`: the installation that holds `repo` (GitHubError 404 if none)."""
        owner, _, name = repo.partition("/")
        path = f"/repos/{urllib.parse.quote(owner, safe='')}/{urllib.parse.quote(name, safe='')}/installation"
        _, data = await self._http.request("GET", path, what=f"GET installation of {repo}")
        return int(data["id"])

    def deliveries(self) -> AsyncIterator[list[dict[str, Any]]]:
        """Pages of webhook delivery attempts, newest first (GitHub keeps them for a few days)."""
        return self._http.pages("/app/hook/deliveries", what="GET webhook deliveries")

    async def set_webhook_secret(self, secret: str) -> None:
        """`PATCH /app/hook/config`: the secret GitHub signs each delivery with."""
        await self._http.request("PATCH", "/app/hook/config", what="set the webhook secret", body={"secret": secret})

    async def redeliver(self, delivery_id: int) -> None:
        await self._http.request("POST", f"/app/hook/deliveries/{int(delivery_id)}/attempts",
                                 what=f"redeliver {delivery_id}")


async def convert_manifest(api_url: str, code: str) -> CreatedApp:
    """Exchange the one-hour code GitHub's redirect carried for the new App's id, key and secrets."""
    requester = Requester(api_url, Anonymous())
    try:
        _, data = await requester.request(
            "POST", f"/app-manifests/{urllib.parse.quote(code, safe='')}/conversions",
            what="convert the App manifest", write=False)
    finally:
        requester.close()
    try:
        owner = data.get("owner") or {}
        app = CreatedApp(id=int(data["id"]), slug=str(data["slug"]), name=str(data.get("name") or data["slug"]),
                         html_url=str(data["html_url"]), client_id=str(data.get("client_id") or ""),
                         owner=str(owner.get("login") or ""), webhook_secret=str(data.get("webhook_secret") or ""),
                         pem=str(data["pem"]))
    except (KeyError, TypeError, ValueError, AttributeError):
        raise GitHubError("convert the App manifest: GitHub's answer lacks the App's id or key") from None
    if app.webhook_secret:
        return app
    # GitHub documents `webhook_secret` as nullable; without one no delivery could be verified, so the new App
    # gets one of ours. If that fails the App is still kept (its key cannot be fetched again); the operator is told.
    secret = secrets.token_hex(32)
    api = AppApi(api_url, str(app.id), app.pem)
    try:
        await api.set_webhook_secret(secret)
    except (GitHubError, GitHubRetryable) as exc:
        log.warning("GitHub created the App without a webhook secret and setting one failed: set it in the App's"
                    " settings and as GITHUB_WEBHOOK_SECRET", extra={"error": str(exc)})
        return app
    finally:
        api.close()
    return dataclasses.replace(app, webhook_secret=secret)
