"""A stopping worker lets a finishing job end, cancels one that would not (it runs again), and never raises."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from arq import ArqRedis, create_pool
from arq.constants import default_queue_name
from arq.worker import Worker, func

from reviewbot.queue import functions
from reviewbot.queue.steady import SteadyWorker
from reviewbot.queue.worker import WorkerJobs, make_worker, redis_settings
from reviewbot.settings import Settings

JOB = "slow"


class SlowJob:
    """A job that says when it started and ends only when the test lets it."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.tries: list[int] = []

    async def run(self, ctx: dict[str, Any]) -> str:
        self.tries.append(ctx["job_try"])
        self.started.set()
        await self.release.wait()
        return "done"

    def worker(self, settings: Settings, redis_url: str, *, burst: bool = False) -> SteadyWorker:
        async def nothing(ctx: dict[str, Any]) -> None:
            return None

        jobs = WorkerJobs(functions=[func(self.run, name=JOB)], cron_jobs=[], on_startup=nothing, on_shutdown=nothing)
        worker = make_worker(settings, redis_url, jobs, burst=burst, handle_signals=False)
        assert isinstance(worker, SteadyWorker)
        return worker


@pytest.fixture
async def pool(redis_url: str) -> AsyncIterator[ArqRedis]:
    client = await create_pool(redis_settings(redis_url), job_serializer=functions.serialize,
                               job_deserializer=functions.deserialize)
    yield client
    await client.aclose()


async def running(job: SlowJob, worker: Worker) -> asyncio.Task[None]:
    """The worker polling in this event loop, once it has started the job."""
    task = asyncio.create_task(worker.async_run())
    await asyncio.wait_for(job.started.wait(), timeout=120)  # generous: only a hung worker fails here
    task.cancel()  # what the service and the tests' background worker do first: stop polling
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return task


async def test_close_lets_a_finishing_job_end_and_does_not_run_it_again(
        settings: Settings, redis_url: str, pool: ArqRedis) -> None:
    job = SlowJob()
    await pool.enqueue_job(JOB, _job_id="finishing")
    worker = job.worker(settings, redis_url)
    await running(job, worker)
    closing = asyncio.create_task(worker.close())
    await asyncio.sleep(0)  # close() is now waiting for the running job
    assert not closing.done() and not worker.allow_pick_jobs
    job.release.set()
    await closing  # used to raise CancelledError for a job still recording its end
    assert (worker.jobs_complete, worker.jobs_retried, worker.jobs_failed) == (1, 0, 0)
    assert await pool.zcard(default_queue_name) == 0  # not queued for another try
    assert job.tries == [1]


async def test_close_cancels_a_job_past_the_grace_cleanly_and_it_runs_again(
        settings: Settings, redis_url: str, pool: ArqRedis) -> None:
    job = SlowJob()
    await pool.enqueue_job(JOB, _job_id="stuck")
    worker = job.worker(settings, redis_url)
    await running(job, worker)
    await worker.close(grace=0)
    assert (worker.jobs_complete, worker.jobs_retried, worker.jobs_failed) == (0, 1, 0)
    job.release.set()  # the next worker's try finishes
    again = job.worker(settings, redis_url, burst=True)
    await again.async_run()
    await again.close()
    assert job.tries == [1, 2] and again.jobs_complete == 1
