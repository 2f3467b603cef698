"""The arq worker: its settings, and the clients it makes at startup and closes at shutdown."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import httpx
from arq import Worker
from arq.connections import RedisSettings
from arq.worker import func
from redis.asyncio import Redis

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.credentials import InstallationCredentials
from reviewbot.app.limits import RateLimits
from reviewbot.app.port import GitHubPort
from reviewbot.inference.client import ModelClient
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.queue import keys
from reviewbot.queue.jobs import MAX_TRIES, review_pull_request
from reviewbot.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class Deps:
    """Long-lived clients shared by every job of this worker process."""

    settings: Settings
    http: httpx.AsyncClient
    tokens: InstallationTokens
    reviewer: StructuredReviewer
    limits: RateLimits = field(default_factory=RateLimits)

    def port(self, token: str) -> GitHubPort:
        return GitHubPort(token, self.settings.github_api_url, limits=self.limits)

    def installation_port(self, installation_id: int) -> GitHubPort:
        """A port that fetches (and after a 401 refreshes) the installation's token itself."""
        credentials = InstallationCredentials(self.tokens, installation_id)
        return GitHubPort(credentials, self.settings.github_api_url, limits=self.limits)

    async def aclose(self) -> None:
        await self.http.aclose()


def build_deps(settings: Settings, transport: httpx.AsyncBaseTransport | None = None,
               redis: Redis | None = None) -> Deps:
    settings.require(settings.missing_for_github(), "the worker")
    settings.require(settings.missing_for_model(), "the worker")
    assert settings.github_app_id and settings.github_private_key  # checked just above
    timeout = httpx.Timeout(settings.model_timeout, connect=10.0)
    http = httpx.AsyncClient(timeout=timeout, transport=transport,
                             limits=httpx.Limits(max_connections=100, max_keepalive_connections=20))
    client = ModelClient(http=http, base_url=settings.chat_base_url, model=settings.model,
                         api_token=settings.cloudflare_api_token)
    tokens = InstallationTokens(settings.github_app_id, settings.github_private_key, settings.github_api_url,
                                redis=redis, client_id=settings.github_client_id)
    limits = RateLimits(redis=redis, max_wait=settings.rate_limit_wait, write_interval=settings.write_interval)
    return Deps(settings=settings, http=http, tokens=tokens, reviewer=StructuredReviewer(client), limits=limits)


async def startup(ctx: dict[str, Any]) -> None:
    if "deps" not in ctx:
        ctx["deps"] = build_deps(ctx["settings"], redis=ctx.get("redis"))
    log.info("worker started")


async def shutdown(ctx: dict[str, Any]) -> None:
    deps: Deps | None = ctx.get("deps")
    if deps is not None:
        await deps.aclose()


def redis_settings(url: str) -> RedisSettings:
    return RedisSettings.from_dsn(url)


def make_worker(settings: Settings, redis_url: str, *, burst: bool = False, handle_signals: bool = True,
                ctx: dict[str, Any] | None = None) -> Worker:
    """An arq Worker with JSON job payloads; `ctx` may carry prebuilt deps (tests, embedded mode)."""
    return Worker(
        functions=[func(review_pull_request, name=keys.REVIEW_FUNCTION, max_tries=MAX_TRIES)],
        redis_settings=redis_settings(redis_url),
        on_startup=startup,
        on_shutdown=shutdown,
        ctx={"settings": settings, **(ctx or {})},
        max_jobs=settings.max_jobs,
        job_timeout=settings.job_timeout,
        keep_result=3600,
        allow_abort_jobs=True,
        burst=burst,
        poll_delay=0.2,
        handle_signals=handle_signals,
        job_serializer=keys.serialize,
        job_deserializer=keys.deserialize,
    )
