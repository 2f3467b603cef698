"""Who the App is: its slug (read once from `GET /app` with the JWT) cached in Redis for every process."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from reviewbot.errors import ReviewbotError
from reviewbot.settings import Settings
from reviewbot.state.shared_keys import APP_SLUG_KEY

log = logging.getLogger(__name__)


def fetch_app(settings: Settings) -> dict[str, Any]:
    """`GET /app` as the App itself (synchronous: call it in a thread)."""
    # PyGithub and the JWT library are imported here: the web process imports this module for `remember_slug`,
    # which asks GitHub only when REVIEWBOT_APP_SLUG is unset.
    from github import Auth, GithubException

    from reviewbot.app.auth import app_jwt
    from reviewbot.app.github_errors import translate
    from reviewbot.app.port import new_github

    assert settings.github_app_id and settings.github_private_key
    gh = new_github(Auth.AppAuthToken(app_jwt(settings.github_app_id, settings.github_private_key)),
                    settings.github_api_url)
    try:
        _, data = gh.requester.requestJsonAndCheck("GET", "/app")
    except GithubException as exc:
        raise translate(exc, "GET /app") from None
    finally:
        gh.close()
    return dict(data)


async def remember_slug(settings: Settings, redis: Any) -> str | None:
    """Store the App's slug in Redis (REVIEWBOT_APP_SLUG wins); failures are logged, never fatal."""
    slug = settings.app_slug
    if slug is None and not settings.missing_for_github():
        try:
            slug = str((await asyncio.wait_for(asyncio.to_thread(fetch_app, settings), 15))["slug"])
        except (ReviewbotError, TimeoutError, KeyError) as exc:
            log.warning("could not read the App's slug from GET /app", extra={"error": str(exc)})
    if slug:
        await redis.set(APP_SLUG_KEY, slug)
    return slug


async def known_slug(settings: Settings, redis: Any) -> str | None:
    """The App's slug as configured, or as a process read it from `GET /app` (None when nobody could)."""
    if settings.app_slug:
        return settings.app_slug
    raw = await redis.get(APP_SLUG_KEY)
    return (raw.decode() if isinstance(raw, bytes) else str(raw)) if raw else None
