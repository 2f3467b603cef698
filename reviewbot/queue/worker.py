"""The arq worker: its settings and lifecycle; the jobs it runs live in reviewbot.jobs."""

from __future__ import annotations

import logging
from typing import Any

from arq import Worker, cron
from arq.connections import RedisSettings
from arq.worker import func

from reviewbot.app.identity import remember_slug
from reviewbot.app.port.code_scanning import MAX_POLLS
from reviewbot.jobs.audit.chunk_job import audit_chunk
from reviewbot.jobs.audit.finish_job import finish_audit
from reviewbot.jobs.audit.job_ids import (
    CHUNK_FUNCTION,
    FINISH_FUNCTION,
    PLAN_FUNCTION,
    POLL_FUNCTION,
    SCHEDULE_FUNCTION,
)
from reviewbot.jobs.audit.plan_job import plan_audit
from reviewbot.jobs.audit.push_job import audit_after_push
from reviewbot.jobs.audit.schedule import SCAN_MINUTES, audit_schedules
from reviewbot.jobs.audit.upload_status import audit_upload_status
from reviewbot.jobs.commands.comment_job import handle_command
from reviewbot.jobs.deps import Deps, build_deps
from reviewbot.jobs.pr_review.review_job import review_pull_request
from reviewbot.jobs.suite_job import rerun_suite
from reviewbot.jobs.thread_answers.conversation_job import answer_thread
from reviewbot.queue import keys
from reviewbot.queue.observed import observed
from reviewbot.queue.steady import SteadyWorker
from reviewbot.settings import Settings
from reviewbot.settings.catalogue import model_warnings

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
                   func(observed(rerun_suite, "suite"), name=keys.SUITE_FUNCTION, max_tries=5),
                   # Audits: a chunk waiting in the provider's queue defers itself, so tries are mostly polls.
                   # A plan handed to a worker with an idle core (CpuBusy) is one of arq's tries too.
                   func(observed(plan_audit, "audit"), name=PLAN_FUNCTION, max_tries=10_000),
                   # Defers itself while an audit of the branch runs (each deferral is one of arq's tries).
                   func(observed(audit_after_push, "audit"), name=keys.PUSH_AUDIT_FUNCTION, max_tries=10_000),
                   func(observed(audit_chunk, "audit"), name=CHUNK_FUNCTION, max_tries=10_000),
                   func(observed(finish_audit, "audit"), name=FINISH_FUNCTION, max_tries=10_000),
                   # check_processed gives up after MAX_POLLS looks; each deferral is one of arq's tries.
                   func(observed(audit_upload_status, "audit"), name=POLL_FUNCTION, max_tries=MAX_POLLS + 10)],
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
