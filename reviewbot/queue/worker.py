"""The arq worker: its settings, and the clients it makes at startup and closes at shutdown."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import httpx
from arq import Worker, cron
from arq.connections import RedisSettings
from arq.worker import func

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.credentials import InstallationCredentials
from reviewbot.app.identity import remember_slug
from reviewbot.app.limits import RateLimits
from reviewbot.app.port import GitHubPort
from reviewbot.catalogue import model_warnings
from reviewbot.inference.allowance import Gate
from reviewbot.inference.budget import DailyBudget, Limits
from reviewbot.inference.client import ModelClient
from reviewbot.inference.factory import model_client
from reviewbot.inference.memo import RedisMemo
from reviewbot.inference.ratelimit import RequestBucket
from reviewbot.inference.structured import StructuredReviewer, Tools
from reviewbot.jobs.audit.chunk_job import audit_chunk
from reviewbot.jobs.audit.finish_job import finish_audit
from reviewbot.jobs.audit.job_ids import CHUNK_FUNCTION, FINISH_FUNCTION, PLAN_FUNCTION, SCHEDULE_FUNCTION
from reviewbot.jobs.audit.planner import plan_audit
from reviewbot.jobs.audit.schedule import SCAN_MINUTES, audit_schedules
from reviewbot.observe.jobcontext import record_request, watch_port
from reviewbot.queue import keys
from reviewbot.queue.comment_job import handle_command
from reviewbot.queue.conversation_job import answer_thread
from reviewbot.queue.observed import observed
from reviewbot.queue.review_job import review_pull_request
from reviewbot.queue.slots import InstallationSlots
from reviewbot.queue.steady import SteadyWorker
from reviewbot.queue.suite_job import rerun_suite
from reviewbot.settings import Settings

log = logging.getLogger(__name__)


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
    limits = RateLimits(redis=redis, max_wait=settings.rate_limit_wait, write_interval=settings.write_interval)
    slots = InstallationSlots(redis, settings.installation_concurrency, lease_s=settings.job_timeout + 60)
    budget = DailyBudget(redis, Limits(settings.daily_budget_usd, settings.daily_budget_tokens),
                         Limits(settings.repo_daily_budget_usd, settings.repo_daily_budget_tokens),
                         lease_s=settings.job_timeout + 60)
    client = model_client(settings, http, bucket)
    client.on_request = record_request  # observe: each paid request is charged to the job that made it
    return Deps(settings=settings, http=http, tokens=tokens, client=client, slots=slots, budget=budget, redis=redis,
                limits=limits)


async def startup(ctx: dict[str, Any]) -> None:
    if "deps" not in ctx:
        ctx["deps"] = build_deps(ctx["settings"], ctx["redis"])
    await remember_slug(ctx["settings"], ctx["redis"])
    for warning in model_warnings(ctx["settings"].model, ctx["settings"].thinking):
        log.warning(warning)
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
    return SteadyWorker(
        # arq's try counter also counts waits for a free slot; real failures have their own budget (retries.py).
        # observed(): metrics for every try, and one ledger record per review however it ends.
        functions=[func(observed(review_pull_request, "review"), name=keys.REVIEW_FUNCTION, max_tries=10_000),
                   func(observed(handle_command, "command"), name=keys.COMMAND_FUNCTION, max_tries=10_000),
                   # observed(..., "conversation"): each answer's cost is a `conversation` ledger record
                   func(observed(answer_thread, "conversation"), name=keys.CONVERSATION_FUNCTION,
                        max_tries=10_000),
                   func(observed(rerun_suite, "suite"), name=keys.SUITE_FUNCTION, max_tries=5),
                   # Audits: a chunk waiting in the provider's queue defers itself, so tries are mostly polls.
                   func(observed(plan_audit, "audit"), name=PLAN_FUNCTION, max_tries=20),
                   func(observed(audit_chunk, "audit"), name=CHUNK_FUNCTION, max_tries=10_000),
                   func(observed(finish_audit, "audit"), name=FINISH_FUNCTION, max_tries=10_000)],
        # Every few minutes one worker (arq's cron job id is unique per run) starts the scheduled audits that are due.
        cron_jobs=[cron(observed(audit_schedules, "audit"), name=SCHEDULE_FUNCTION, minute=SCAN_MINUTES,
                        run_at_startup=False, unique=True)],
        redis_settings=redis_settings(redis_url),
        on_startup=startup,
        on_shutdown=shutdown,
        ctx={"settings": settings, **(ctx or {})},
        max_jobs=settings.max_jobs,
        job_timeout=settings.job_timeout,
        keep_result=0,  # no result key: once a job ends, the same SHA can be reviewed again (Re-run)
        job_completion_wait=int(settings.shutdown_grace),
        allow_abort_jobs=True,
        burst=burst,
        poll_delay=0.2,
        handle_signals=handle_signals,
        job_serializer=keys.serialize,
        job_deserializer=keys.deserialize,
    )
