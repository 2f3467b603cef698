"""arq's Worker, except that losing Redis pauses it instead of ending the process (or the embedded worker task)."""

from __future__ import annotations

import asyncio
import logging

from arq import Worker
from arq.constants import in_progress_key_prefix
from arq.utils import timestamp_ms
from redis.exceptions import RedisError, ResponseError, WatchError

log = logging.getLogger(__name__)
MAX_BACKOFF_S = 5.0


class SteadyWorker(Worker):
    """arq lets a Redis error in its polling loop end `main()`: the process exits with a traceback, or, in
    `reviewbot serve`, the worker task dies unseen while webhooks are still accepted. Here the loop waits and
    tries again until Redis is back; a job caught in the middle stays "in progress" in Redis and runs again
    after its timeout, as after a crash."""

    _redis_down_since: float | None = None

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
        async with self.pool.pipeline(transaction=True) as pipe:
            await pipe.watch(in_progress_key)
            ongoing = await pipe.exists(in_progress_key)
            score = await pipe.zscore(self.queue_name, job_id)
            if ongoing or not score or score > timestamp_ms():
                return False
            pipe.multi()  # type: ignore[no-untyped-call]
            pipe.psetex(in_progress_key, int(self.in_progress_timeout_s * 1000), b"1")
            try:
                await pipe.execute()
            except (ResponseError, WatchError):
                return False  # another worker took it in the meantime
        task = self.loop.create_task(self.run_job(job_id, int(score)))
        task.add_done_callback(lambda _: self._release_sem_dec_counter_on_complete())
        self.tasks[job_id] = task
        return True

    async def _wait_for_redis(self, exc: BaseException) -> None:
        now = self.loop.time()
        if self._redis_down_since is None:
            self._redis_down_since = now
            log.warning("Redis is unreachable; the worker waits for it", extra={"error": type(exc).__name__})
        await asyncio.sleep(min(MAX_BACKOFF_S, 0.5 + (now - self._redis_down_since) / 4))
