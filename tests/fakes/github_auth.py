"""GitHub App authentication: JWT checks, installation tokens, and the app-level endpoints."""

from __future__ import annotations

import secrets
import string
import time
from datetime import UTC, datetime
from typing import Any

import jwt
from starlette.datastructures import Headers

from tests.fakes.github_core import WEB_URL, ApiError, Call, Identity, Reply, now_iso, paginate
from tests.fakes.github_state import GitHubState, IssuedToken

TOKEN_TTL_S = 3600
# GitHub rejects JWTs living longer than 10 minutes; PyGithub back-dates `iat` by 60 s, hence 660.
_MAX_JWT_LIFETIME_S = 660
_CLOCK_SKEW_S = 30
_TOKEN_ALPHABET = string.ascii_letters + string.digits

_BAD_JWT = "A JSON web token could not be decoded"
_EXP_TOO_FAR = "'Expiration time' claim ('exp') is too far in the future"
_EXPIRED = (
    "'Expiration time' claim ('exp') must be a numeric value representing the future time at which "
    "the assertion expires"
)
_IAT_FUTURE = "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"


def _credentials(headers: Headers) -> tuple[str, str] | None:
    header = headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() not in ("token", "bearer") or not value.strip():
        return None
    return scheme.lower(), value.strip()


def app_identity(state: GitHubState, headers: Headers) -> Identity:
    """Validate the app JWT the way GitHub does, or raise 401."""
    creds = _credentials(headers)
    if creds is None or creds[0] != "bearer":
        raise ApiError(401, _BAD_JWT)
    try:
        claims = jwt.decode(
            creds[1],
            state.public_key_pem,
            algorithms=["RS256"],
            # Time claims are checked below so that each failure gets GitHub's own message.
            options={"verify_exp": False, "verify_iat": False, "verify_nbf": False, "require": ["iat", "exp", "iss"]},
        )
    except jwt.PyJWTError:
        raise ApiError(401, _BAD_JWT) from None
    if str(claims["iss"]) not in (str(state.app_id), state.client_id):
        raise ApiError(401, _BAD_JWT)
    iat, exp, now = claims["iat"], claims["exp"], time.time()
    if not isinstance(iat, int) or iat > now + _CLOCK_SKEW_S:
        raise ApiError(401, _IAT_FUTURE)
    if not isinstance(exp, int) or exp <= now:
        raise ApiError(401, _EXPIRED)
    if exp - iat > _MAX_JWT_LIFETIME_S or exp > now + 600 + _CLOCK_SKEW_S:
        raise ApiError(401, _EXP_TOO_FAR)
    return Identity(kind="app", rate_key=f"app:{state.app_id}", login=state.bot_login)


def token_identity(state: GitHubState, headers: Headers, repo: str | None, method: str = "GET") -> Identity:
    """Resolve an installation or personal token, and check it may act on `repo`: any token may read a public
    repository; another repository outside its installation is not found to a read and forbidden to a write."""
    creds = _credentials(headers)
    if creds is None:
        raise ApiError(401, "Requires authentication")
    value = creds[1]
    if value in state.personal_tokens:
        return Identity(kind="personal", rate_key=f"pat:{value}", login=state.personal_login)
    token = state.tokens.get(value)
    if token is None or token.revoked or token.expires_at <= time.time():
        raise ApiError(401, "Bad credentials")
    installation = state.installations.get(token.installation_id)
    if installation is None:
        raise ApiError(401, "Bad credentials")
    identity = Identity(
        kind="installation", rate_key=f"token:{value}", login=state.bot_login, installation_id=installation.id
    )
    if repo is not None and repo not in installation.repos:
        if method == "GET" and state.is_public(repo):
            return identity
        # Charged to the token, as GitHub does: a refused request is not an anonymous one.
        raise ForbiddenFor(identity, hidden=method == "GET")
    return identity


class ForbiddenFor(ApiError):
    """A known token asking for a repository its installation does not include: 404 when GitHub hides that the
    repository exists (a read of one that is not public), 403 otherwise."""

    def __init__(self, identity: Identity, *, hidden: bool = False) -> None:
        if hidden:
            super().__init__(404, "Not Found")
        else:
            super().__init__(403, "Resource not accessible by integration")
        self.identity = identity


def installation_json(state: GitHubState, installation_id: int) -> dict[str, Any]:
    installation = state.installations[installation_id]
    return {
        "id": installation.id,
        "account": {**state.user(installation.account), "type": "Organization"},
        "app_id": state.app_id,
        "app_slug": state.app_slug,
        "target_type": "Organization",
        "permissions": installation.permissions,
        "events": ["check_run", "issue_comment", "pull_request"],
        "repository_selection": "selected",
        "access_tokens_url": state.api(f"/app/installations/{installation.id}/access_tokens"),
        "repositories_url": state.api("/installation/repositories"),
        "html_url": f"{WEB_URL}/organizations/{installation.account}/settings/installations/{installation.id}",
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": "2024-01-01T00:00:00Z",
        "suspended_at": None,
    }


def create_access_token(state: GitHubState, call: Call) -> Reply:
    installation = state.installations.get(call.int_param("installation_id"))
    if installation is None:
        raise ApiError(404, "Not Found")
    requested = (call.body if isinstance(call.body, dict) else {}).get("permissions") or {}
    if not isinstance(requested, dict):
        raise ApiError(422, "Invalid request.\n\nFor 'properties/permissions', is not an object.")
    order = ["read", "write", "admin"]
    for name, level in requested.items():
        granted = installation.permissions.get(name)
        if granted is None or level not in order or order.index(level) > order.index(granted):
            raise ApiError(422, "The permissions requested are not granted to this installation.")
    token = "ghs_" + "".join(secrets.choice(_TOKEN_ALPHABET) for _ in range(36))
    expires_at = int(time.time()) + TOKEN_TTL_S
    state.tokens[token] = IssuedToken(installation_id=installation.id, expires_at=expires_at)
    return Reply(
        201,
        {
            "token": token,
            "expires_at": now_iso(datetime.fromtimestamp(expires_at, UTC)),
            "permissions": requested or installation.permissions,
            "repository_selection": "selected",
        },
    )


def get_app(state: GitHubState, call: Call) -> Reply:
    return Reply(
        json={
            "id": state.app_id,
            "slug": state.app_slug,
            "node_id": f"A_fake{state.app_id}",
            "name": state.app_slug.replace("-", " ").title(),
            "owner": {**state.user("reviewbot-org"), "type": "Organization"},
            "client_id": state.client_id,
            "description": "Reviews pull requests (fake)",
            "external_url": "https://example.invalid",
            "html_url": f"{WEB_URL}/apps/{state.app_slug}",
            "permissions": dict(next(iter(state.installations.values())).permissions) if state.installations else {},
            "events": ["check_run", "issue_comment", "pull_request"],
            "installations_count": len(state.installations),
            "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-01T00:00:00Z",
        }
    )


def get_repo_installation(state: GitHubState, call: Call) -> Reply:
    for installation in state.installations.values():
        if call.repo in installation.repos:
            return Reply(json=installation_json(state, installation.id))
    raise ApiError(404, "Not Found")


def get_installation(state: GitHubState, call: Call) -> Reply:
    installation_id = call.int_param("installation_id")
    if installation_id not in state.installations:
        raise ApiError(404, "Not Found")
    return Reply(json=installation_json(state, installation_id))


def list_installations(state: GitHubState, call: Call) -> Reply:
    page, headers = paginate(call, [installation_json(state, i) for i in sorted(state.installations)])
    return Reply(json=page, headers=headers)


def list_installation_repos(state: GitHubState, call: Call) -> Reply:
    """`GET /installation/repositories`: the repositories the calling installation token may read."""
    installation_id = call.identity.installation_id
    if call.identity.kind != "installation" or installation_id not in state.installations:
        raise ApiError(403, "This endpoint requires an installation token")
    repos = sorted(state.installations[installation_id].repos)
    page, headers = paginate(call, [state.repo_json(r) for r in repos])
    return Reply(json={"total_count": len(repos), "repositories": page}, headers=headers)
