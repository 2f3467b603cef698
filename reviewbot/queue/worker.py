"""The arq worker: its settings and lifecycle around the jobs it is handed (reviewbot.jobs.registry names them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arq import Worker
from arq.connections import RedisSettings
from arq.cron import CronJob
from arq.typing import StartupShutdown
from arq.worker import Function

from reviewbot.queue import functions
from reviewbot.queue.steady import SteadyWorker
from reviewbot.settings import Settings

POLL_DELAY_S = 0.2  # how often an idle worker looks for due jobs (arq's default is 0.5 s)


@dataclass(frozen=True)
class WorkerJobs:
    """What a worker runs: its job functions and cron jobs, and what it does when it starts and stops."""

    functions: Sequence[Function]
    cron_jobs: Sequence[CronJob]
    on_startup: StartupShutdown
    on_shutdown: StartupShutdown


def redis_settings(url: str) -> RedisSettings:
    return RedisSettings.from_dsn(url)


def make_worker(settings: Settings, redis_url: str, jobs: WorkerJobs, *, burst: bool = False,
                handle_signals: bool = True, ctx: dict[str, Any] | None = None,
                poll_delay: float = POLL_DELAY_S) -> Worker:
    """An arq Worker with JSON job payloads; `ctx` may carry prebuilt deps (tests, embedded mode); `poll_delay`:
    seconds between an idle worker's looks at the queue."""
    return SteadyWorker(
        functions=list(jobs.functions),
        cron_jobs=list(jobs.cron_jobs),
        redis_settings=redis_settings(redis_url),
        on_startup=jobs.on_startup,
        on_shutdown=jobs.on_shutdown,
        ctx={"settings": settings, **(ctx or {})},
        max_jobs=settings.max_jobs,
        job_timeout=settings.job_timeout,
        keep_result=0,  # no result key: once a job ends, the same SHA can be reviewed again (Re-run)
        job_completion_wait=int(settings.shutdown_grace),
        allow_abort_jobs=True,
        burst=burst,
        poll_delay=poll_delay,
        handle_signals=handle_signals,
        lease_s=settings.job_lease,
        job_serializer=functions.serialize,
        job_deserializer=functions.deserialize,
    )
