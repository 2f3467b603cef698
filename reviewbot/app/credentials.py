"""Who a request runs as: an installation (token, refreshable), the App itself (JWT), a fixed token, nobody."""

from __future__ import annotations

import time
from typing import Protocol

import jwt
from github import Auth

from reviewbot.errors import ConfigError


def app_jwt(issuer: str, private_key: str, now: float | None = None) -> str:
    """The App's JWT: `iat` 60 s in the past for clock drift, `exp` 9 minutes ahead (GitHub caps it at 10);
    the issuer is the client id (GitHub's recommendation) or the app id."""
    issued = int(now if now is not None else time.time()) - 60
    try:
        return jwt.encode({"iat": issued, "exp": issued + 600, "iss": issuer}, private_key, algorithm="RS256")
    except (ValueError, TypeError) as exc:
        raise ConfigError("GITHUB_PRIVATE_KEY is not a valid RSA private key in PEM format") from exc


class Credentials(Protocol):
    """`key` names the rate-limit bucket; `auth(refresh=True)` is asked once after a 401."""

    key: str
    refreshable: bool

    async def auth(self, *, refresh: bool = False) -> Auth.Auth | None: ...


class TokenSource(Protocol):
    """Where installation tokens come from (app/auth.py's InstallationTokens): cached, refreshed on demand."""

    async def get(self, installation_id: int, *, refresh: bool = False) -> str: ...


class InstallationCredentials:
    def __init__(self, tokens: TokenSource, installation_id: int) -> None:
        self.tokens = tokens
        self.installation_id = installation_id
        self.key = f"installation:{installation_id}"
        self.refreshable = True

    async def auth(self, *, refresh: bool = False) -> Auth.Auth:
        return Auth.Token(await self.tokens.get(self.installation_id, refresh=refresh))


class AppCredentials:
    """The App's JWT, minted anew for each client (it lives nine minutes)."""

    def __init__(self, issuer: str, private_key: str) -> None:
        self.issuer = issuer
        self.private_key = private_key
        self.key = "app"
        self.refreshable = True

    async def auth(self, *, refresh: bool = False) -> Auth.Auth:
        return Auth.AppAuthToken(app_jwt(self.issuer, self.private_key))


class TokenCredentials:
    """A token someone else manages (a personal token, a token handed to the port): no refresh."""

    def __init__(self, token: str, key: str = "token") -> None:
        self._token = token
        self.key = key
        self.refreshable = False

    async def auth(self, *, refresh: bool = False) -> Auth.Auth:
        return Auth.Token(self._token)


class Anonymous:
    """No credentials: the manifest conversion needs none."""

    key = "anonymous"
    refreshable = False

    async def auth(self, *, refresh: bool = False) -> None:
        return None
