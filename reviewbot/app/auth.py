"""The App's identity: RS256 JWTs and installation tokens cached in memory and Redis until near expiry."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime

from redis.asyncio import Redis
from redis.exceptions import RedisError

from reviewbot.app.credentials import AppCredentials, app_jwt
from reviewbot.app.requester import Requester
from reviewbot.observe.logs import REDACTOR
from reviewbot.state.shared_keys import installation_token_key

__all__ = ["REFRESH_MARGIN", "InstallationToken", "InstallationTokens", "app_jwt"]
log = logging.getLogger(__name__)
REFRESH_MARGIN = 300.0  # refresh tokens five minutes before GitHub expires them


@dataclass(frozen=True)
class InstallationToken:
    token: str
    expires_at: float

    def fresh(self, now: float) -> bool:
        return now < self.expires_at - REFRESH_MARGIN


class InstallationTokens:
    """Installation tokens per installation id; one process asks GitHub, the others find the token in Redis."""

    def __init__(self, app_id: str, private_key: str, api_url: str, *, timeout: int = 30,
                 redis: Redis | None = None, client_id: str | None = None) -> None:
        self._app_id = app_id
        self._credentials = AppCredentials(client_id or app_id, private_key)
        self._api_url = api_url
        self._timeout = timeout
        self._redis = redis
        self._cache: dict[int, InstallationToken] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    async def get(self, installation_id: int, *, refresh: bool = False) -> str:
        """A live token; `refresh` skips both caches (after GitHub answered 401 to the cached one)."""
        lock = self._locks.setdefault(installation_id, asyncio.Lock())
        async with lock:  # one request per installation even when many jobs start at once
            now = time.time()
            cached = None if refresh else self._cache.get(installation_id)
            if not refresh and (cached is None or not cached.fresh(now)):
                cached = await self._shared(installation_id)
            if cached is None or not cached.fresh(now):
                cached = await self._fetch(installation_id)
                log.info("installation token issued", extra={"installation_id": installation_id})
                await self._share(installation_id, cached)
            self._cache[installation_id] = cached
            REDACTOR.add(cached.token)
            return cached.token

    def _key(self, installation_id: int) -> str:
        return installation_token_key(self._app_id, installation_id)

    async def _shared(self, installation_id: int) -> InstallationToken | None:
        if self._redis is None:
            return None
        try:
            raw = await self._redis.get(self._key(installation_id))
            data = json.loads(raw) if raw else None
            return InstallationToken(str(data["token"]), float(data["expires_at"])) if data else None
        except (RedisError, ValueError, KeyError, TypeError) as exc:
            log.warning("could not read the shared token cache", extra={"error": type(exc).__name__})
            return None

    async def _share(self, installation_id: int, token: InstallationToken) -> None:
        ttl = int(token.expires_at - REFRESH_MARGIN - time.time())
        if self._redis is None or ttl <= 0:
            return
        try:
            value = json.dumps({"token": token.token, "expires_at": token.expires_at})
            await self._redis.set(self._key(installation_id), value, ex=ttl)
        except RedisError as exc:
            log.warning("could not write the shared token cache", extra={"error": type(exc).__name__})

    async def _fetch(self, installation_id: int) -> InstallationToken:
        requester = Requester(self._api_url, self._credentials, timeout=self._timeout)
        try:
            _, data = await requester.request("POST", f"/app/installations/{int(installation_id)}/access_tokens",
                                              what=f"installation token for installation {installation_id}",
                                              write=False, idempotent=True)
        finally:
            requester.close()
        expires = datetime.fromisoformat(str(data["expires_at"]).replace("Z", "+00:00")).timestamp()
        return InstallationToken(token=str(data["token"]), expires_at=expires)
