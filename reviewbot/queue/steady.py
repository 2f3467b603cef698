"""arq's Worker, except that a running job holds a short lease renewed by a heartbeat (a killed worker's job runs
again within seconds, not after the job timeout), a job that lost its lease stops (fencing), and losing Redis
pauses the worker instead of ending it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from signal import Signals
from typing import Any

from arq import Worker
from arq.constants import in_progress_key_prefix
from arq.utils import timestamp_ms
from redis.exceptions import RedisError, ResponseError, WatchError

from reviewbot.observe.fencing import Lease, context_under
from reviewbot.queue.shutdown import stop_jobs

log = logging.getLogger(__name__)
MAX_BACKOFF_S = 5.0
# arq marks a running job "in progress" for the job timeout + 10 s (910 s by default): a job whose worker was
# SIGKILLed waited that long. Here the mark lasts `lease_s` (REVIEWBOT_JOB_LEASE, 15 s by default) and a heartbeat
# renews it every third of that while the job runs, so another worker takes up a dead worker's job at most `lease_s`
# after the kill; a Redis outage or a blocked event loop shorter than two thirds of it does not let a live job be
# taken over.
LEASE_S = 15.0
# A lease is renewed only while it still holds this worker's token: a lapsed lease that another worker claimed
# stays theirs, and the first run learns it lost the job (its fencing checks stop it before paying or posting).
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""


class SteadyWorker(Worker):
    """arq lets a Redis error in its polling loop end `main()`: the process exits with a traceback, or, in
    `reviewbot serve`, the worker task dies unseen while webhooks are still accepted. Here the loop waits and
    tries again until Redis is back; a job caught in the middle stays "in progress" in Redis and runs again
    after its lease, as after a crash."""

    _redis_down_since: float | None = None
    _heartbeat: asyncio.Task[None] | None = None
    _leases: dict[str, Lease] | None = None

    def __init__(self, *args: Any, lease_s: float = LEASE_S, **kwargs: Any) -> None:
        """arq's Worker; `lease_s`: how long a running job's claim lasts without a renewal."""
        super().__init__(*args, **kwargs)
        self.lease_s = lease_s

    async def _poll_iteration(self) -> None:
        try:
            await super()._poll_iteration()
        except (RedisError, OSError) as exc:
            await self._wait_for_redis(exc)
            return
        if self._redis_down_since is not None:
            log.warning("Redis is reachable again; the worker goes on",
                        extra={"down_s": round(self.loop.time() - self._redis_down_since, 1)})
            self._redis_down_since = None

    async def start_jobs(self, job_ids: list[bytes]) -> None:
        """arq's, except that the job slot taken before the Redis transaction is given back when it fails
        (arq would lose it for good: after enough Redis errors the worker would never take a job again)."""
        for raw in job_ids:
            await self.sem.acquire()
            if self.job_counter >= self.max_jobs:
                self.sem.release()
                return
            self.job_counter += 1
            started = False
            try:
                started = await self._claim(raw.decode())
            finally:
                if not started:
                    self.job_counter -= 1
                    self.sem.release()

    async def _claim(self, job_id: str) -> bool:
        """Mark the job in progress unless another worker has it (or it is deferred), then run it."""
        in_progress_key = in_progress_key_prefix + job_id
        token = secrets.token_hex(16).encode()  # the fencing token: whoever holds the key with it runs the job
        claimed_at = self.loop.time()
        async with self.pool.pipeline(transaction=True) as pipe:
            await pipe.watch(in_progress_key)
            ongoing = await pipe.exists(in_progress_key)
            score = await pipe.zscore(self.queue_name, job_id)
            if ongoing or not score or score > timestamp_ms():
                return False
            pipe.multi()  # type: ignore[no-untyped-call]
            pipe.psetex(in_progress_key, int(self.lease_s * 1000), token)  # a lease, renewed by _renew_leases
            try:
                await pipe.execute()
            except (ResponseError, WatchError):
                return False  # another worker took it in the meantime
        lease = Lease(self.pool, in_progress_key, token, claimed_at + self.lease_s)
        leases = self._leases = self._leases if self._leases is not None else {}
        leases[job_id] = lease
        task = self.loop.create_task(self.run_job(job_id, int(score)), context=context_under(lease))
        task.add_done_callback(lambda _: self._release_sem_dec_counter_on_complete())
        task.add_done_callback(lambda _: leases.pop(job_id, None) if leases.get(job_id) is lease else None)
        self.tasks[job_id] = task
        if self._heartbeat is None or self._heartbeat.done():
            self._heartbeat = self.loop.create_task(self._renew_leases())
        return True

    def _running(self) -> list[str]:
        return [job_id for job_id, task in self.tasks.items() if not task.done()]

    async def _renew_leases(self) -> None:
        """While jobs run here, extend their in-progress marks; ends when none is left (the next claim restarts it)."""
        while self._running():
            await asyncio.sleep(self.lease_s / 3)
            running = self._running()
            if not running:
                return
            leases = [(job_id, lease) for job_id in running if (lease := (self._leases or {}).get(job_id))]
            asked = self.loop.time()
            try:
                async with self.pool.pipeline(transaction=False) as pipe:
                    for _, lease in leases:
                        pipe.eval(RENEW, 1, lease.key, lease.token.decode(), str(int(self.lease_s * 1000)))
                    renewed = await pipe.execute()
            except (RedisError, OSError) as exc:  # the next beat tries again; the lease outlives a short outage
                log.warning("could not renew the leases of running jobs", extra={"error": type(exc).__name__})
                continue
            for (_, lease), ok in zip(leases, renewed, strict=True):
                if ok:
                    lease.valid_until = asked + self.lease_s
                else:
                    lease.lost = True
            if lapsed := [job_id for (job_id, _), ok in zip(leases, renewed, strict=True) if not ok]:
                log.warning("a running job's lease had lapsed; it stops at its next paid request or GitHub write",
                            extra={"jobs": len(lapsed)})

    async def _lost(self, job_id: str) -> bool:
        """Whether this worker ran `job_id` under a lease another worker has taken since (or that lapsed)."""
        lease = (self._leases or {}).get(job_id)
        if lease is None:
            return False
        if not lease.lost:
            with contextlib.suppress(RedisError, OSError):
                lease.lost = await self.pool.get(lease.key) != lease.token
        return lease.lost

    async def finish_job(self, job_id: str, *args: Any, **kwargs: Any) -> None:
        """arq's, except for a job whose lease was lost: its result, retry and queue entry are the new holder's."""
        if await self._lost(job_id):
            log.warning("a job that lost its lease ended; its new holder finishes it", extra={"job_id": job_id})
            return
        await super().finish_job(job_id, *args, **kwargs)

    async def finish_failed_job(self, job_id: str, result_data: bytes | None) -> None:
        if await self._lost(job_id):
            log.warning("a job that lost its lease failed; its new holder finishes it", extra={"job_id": job_id})
            return
        await super().finish_failed_job(job_id, result_data)

    async def close(self, grace: float | None = None) -> None:
        """Stop polling and taking jobs, let running jobs finish for `grace` seconds (the shutdown grace by default),
        cancel the rest (they run again), then close the Redis pool. Unlike arq's, never raises CancelledError for
        a job that was still finishing."""
        if self.main_task is not None:
            self.main_task.cancel()
        try:
            await stop_jobs(self, self._job_completion_wait if grace is None else grace)
        finally:  # the heartbeat kept the leases of the jobs above renewed until they ended
            if self._heartbeat is not None:
                self._heartbeat.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._heartbeat
        if self._pool is None:
            return
        await self.pool.delete(self.health_check_key)
        if self.on_shutdown:
            await self.on_shutdown(self.ctx)
        await self.pool.aclose(close_connection_pool=True)
        self._pool = None

    async def _wait_for_tasks_to_complete(self, signum: Signals) -> None:
        """SIGTERM / SIGINT with a shutdown grace: arq's, with the same clean stop as `close`."""
        await stop_jobs(self, self._job_completion_wait)
        if self.main_task is not None:
            self.main_task.cancel()
        if self.on_stop is not None:
            self.on_stop(signum)

    async def _wait_for_redis(self, exc: BaseException) -> None:
        now = self.loop.time()
        if self._redis_down_since is None:
            self._redis_down_since = now
            log.warning("Redis is unreachable; the worker waits for it", extra={"error": type(exc).__name__})
        await asyncio.sleep(min(MAX_BACKOFF_S, 0.5 + (now - self._redis_down_since) / 4))
