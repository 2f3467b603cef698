"""The arq worker: its settings and lifecycle; the jobs it runs live in reviewbot.jobs."""

from __future__ import annotations

import logging
from typing import Any

from arq import Worker
from arq.connections import RedisSettings
from arq.worker import func

from reviewbot.app.identity import remember_slug
from reviewbot.catalogue import model_warnings
from reviewbot.jobs.commands.comment_job import handle_command
from reviewbot.jobs.deps import Deps, build_deps
from reviewbot.jobs.pr_review.review_job import review_pull_request
from reviewbot.jobs.suite_job import rerun_suite
from reviewbot.jobs.thread_answers.conversation_job import answer_thread
from reviewbot.queue import keys
from reviewbot.queue.observed import observed
from reviewbot.queue.steady import SteadyWorker
from reviewbot.settings import Settings

log = logging.getLogger(__name__)


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
                   func(observed(rerun_suite, "suite"), name=keys.SUITE_FUNCTION, max_tries=5)],
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
