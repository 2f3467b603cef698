"""Stopping a worker's jobs: running jobs finish within the grace, the rest are cancelled and run again later."""

from __future__ import annotations

import asyncio
import logging

from arq import Worker

log = logging.getLogger(__name__)
# Rounds of "cancel the job functions, wait for arq's wrappers to record it" before a wrapper itself is cancelled:
# a wrapper that had not started its job yet when the first round cancelled the others gets its job cancelled in
# the next round; only one stuck in Redis calls (an outage) for every round is cut short.
ROUNDS = 20
ROUND_S = 0.5


async def stop_jobs(worker: Worker, grace: float) -> None:
    """Take no more jobs, give the running ones `grace` seconds, then cancel what is left and wait until every job
    has ended. Never raises a job's cancellation or failure into the caller.

    arq's own close cancels its wrapper tasks (`run_job`) and gathers them: a wrapper cancelled while it records
    a finished job (inside `asyncio.shield`) raises CancelledError out of close, and its bookkeeping goes on after
    the Redis pool is closed. Here the job function is cancelled instead, so the wrapper sees the cancellation,
    queues the job for another try and ends normally."""
    worker.allow_pick_jobs = False
    running = _running(worker)
    if running and grace > 0:
        await asyncio.wait(running, timeout=grace)
    for _ in range(ROUNDS):
        if not (running := _running(worker)):
            return
        for job in list(worker.job_tasks.values()):
            job.cancel()
        await asyncio.wait(running, timeout=ROUND_S)
    if stuck := _running(worker):
        log.warning("jobs still recording their end at shutdown are cancelled", extra={"jobs": len(stuck)})
        for task in stuck:
            task.cancel()
        await asyncio.gather(*stuck, return_exceptions=True)


def _running(worker: Worker) -> list[asyncio.Task[object]]:
    return [task for task in worker.tasks.values() if not task.done()]
