"""Deps: the long-lived clients a job gets (made once per worker process, closed at shutdown)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.credentials import InstallationCredentials
from reviewbot.app.limits import RateLimits, write_hold_s
from reviewbot.app.port import GitHubPort
from reviewbot.inference.allowance import Gate
from reviewbot.inference.budget import DailyBudget, Limits
from reviewbot.inference.client import ModelClient
from reviewbot.inference.factory import model_client
from reviewbot.inference.memo import RedisMemo
from reviewbot.inference.ratelimit import RequestBucket
from reviewbot.inference.structured import StructuredReviewer, Tools
from reviewbot.observe.fencing import check_lease
from reviewbot.observe.jobcontext import record_request, watch_port
from reviewbot.queue.cpu import CpuSlots
from reviewbot.queue.slots import InstallationSlots
from reviewbot.settings import Settings


@dataclass
class Deps:
    """Long-lived clients shared by every job of this worker process."""

    settings: Settings
    http: httpx.AsyncClient
    tokens: InstallationTokens
    client: ModelClient
    slots: InstallationSlots
    budget: DailyBudget
    redis: Any
    limits: RateLimits = field(default_factory=RateLimits)
    cpu: CpuSlots = field(default_factory=CpuSlots)  # this process's CPU-heavy steps (one core's worth)

    def port(self, token: str) -> GitHubPort:
        return watch_port(GitHubPort(token, self.settings.github_api_url, limits=self.limits))

    def installation_port(self, installation_id: int) -> GitHubPort:
        """A port that fetches (and after a 401 refreshes) the installation's token itself."""
        credentials = InstallationCredentials(self.tokens, installation_id)
        # observe: the port's last rate-limit headers feed the gauge
        return watch_port(GitHubPort(credentials, self.settings.github_api_url, limits=self.limits))

    def reviewer(self, scope: str, tools: Tools | None = None, gate: Gate | None = None,
                 images: list[dict[str, Any]] | None = None) -> StructuredReviewer:
        """A reviewer for one review: its memo lets a re-run job replay answers that came through the queue; all its
        requests share the review's token budget, and `gate` holds each one against the daily budgets first;
        `images` (content parts) go after the diff in every request of the review."""
        return StructuredReviewer(self.client, memo=RedisMemo(self.redis, scope), tools=tools,
                                  max_turns=self.settings.max_tool_turns,
                                  token_budget=self.settings.review_token_budget, gate=gate, images=images)

    async def aclose(self) -> None:
        await self.http.aclose()


def build_deps(settings: Settings, redis: Any, transport: httpx.AsyncBaseTransport | None = None) -> Deps:
    settings.require(settings.missing_for_github(), "the worker")
    settings.require(settings.missing_for_model(), "the worker")
    assert settings.github_app_id and settings.github_private_key  # checked just above
    timeout = httpx.Timeout(settings.model_timeout, connect=10.0)
    http = httpx.AsyncClient(timeout=timeout, transport=transport,
                             limits=httpx.Limits(max_connections=100, max_keepalive_connections=20))
    bucket = RequestBucket(redis, settings.chat_base_url, settings.model_rpm)
    tokens = InstallationTokens(settings.github_app_id, settings.github_private_key, settings.github_api_url,
                                redis=redis, client_id=settings.github_client_id)
    limits = RateLimits(redis=redis, max_wait=settings.rate_limit_wait, write_interval=settings.write_interval,
                        max_write_s=write_hold_s(settings.job_lease))
    slots = InstallationSlots(redis, settings.installation_concurrency, lease_s=settings.job_timeout + 60)
    budget = DailyBudget(redis, Limits(settings.daily_budget_usd, settings.daily_budget_tokens),
                         Limits(settings.repo_daily_budget_usd, settings.repo_daily_budget_tokens),
                         lease_s=settings.job_timeout + 60)
    client = model_client(settings, http, bucket)
    client.on_request = record_request  # observe: each paid request is charged to the job that made it
    client.before_request = check_lease  # fencing: a job whose lease another worker took pays for nothing more
    return Deps(settings=settings, http=http, tokens=tokens, client=client, slots=slots, budget=budget, redis=redis,
                limits=limits)
