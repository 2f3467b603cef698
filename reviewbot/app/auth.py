"""The App's identity: RS256 JWTs and a cache of installation tokens."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from datetime import datetime

import jwt
from github import Auth, GithubException

from reviewbot.app.errors import translate
from reviewbot.app.port import new_github
from reviewbot.errors import ConfigError
from reviewbot.logs import REDACTOR

log = logging.getLogger(__name__)
REFRESH_MARGIN = 300.0  # refresh tokens five minutes before GitHub expires them


def app_jwt(app_id: str, private_key: str, now: float | None = None) -> str:
    """A JWT for the App: iat 60 s in the past for clock drift, exp 9 minutes ahead (GitHub caps it at 10)."""
    issued = int(now if now is not None else time.time()) - 60
    try:
        return jwt.encode({"iat": issued, "exp": issued + 600, "iss": app_id}, private_key, algorithm="RS256")
    except (ValueError, TypeError) as exc:
        raise ConfigError("GITHUB_PRIVATE_KEY is not a valid RSA private key in PEM format") from exc


@dataclass(frozen=True)
class InstallationToken:
    token: str
    expires_at: float

    def fresh(self, now: float) -> bool:
        return now < self.expires_at - REFRESH_MARGIN


class InstallationTokens:
    """Installation tokens per installation id, kept in memory until five minutes before expiry."""

    def __init__(self, app_id: str, private_key: str, api_url: str, *, timeout: int = 30) -> None:
        self._app_id = app_id
        self._key = private_key
        self._api_url = api_url
        self._timeout = timeout
        self._cache: dict[int, InstallationToken] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    async def get(self, installation_id: int, *, refresh: bool = False) -> str:
        """A live token; `refresh` forces a new one (after a 401)."""
        lock = self._locks.setdefault(installation_id, asyncio.Lock())
        async with lock:  # one request per installation even when many jobs start at once
            cached = self._cache.get(installation_id)
            if cached and cached.fresh(time.time()) and not refresh:
                return cached.token
            token = await asyncio.to_thread(self._fetch, installation_id)
            self._cache[installation_id] = token
            REDACTOR.add(token.token)
            log.info("installation token issued", extra={"installation_id": installation_id})
            return token.token

    def _fetch(self, installation_id: int) -> InstallationToken:
        gh = new_github(Auth.AppAuthToken(app_jwt(self._app_id, self._key)), self._api_url, self._timeout)
        try:
            _, data = gh.requester.requestJsonAndCheck(
                "POST", f"/app/installations/{int(installation_id)}/access_tokens")
        except GithubException as exc:
            raise translate(exc, f"installation token for installation {installation_id}") from None
        finally:
            gh.close()
        expires = datetime.fromisoformat(str(data["expires_at"]).replace("Z", "+00:00")).timestamp()
        return InstallationToken(token=str(data["token"]), expires_at=expires)
