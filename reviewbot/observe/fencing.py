"""A running job's lease as a fencing token: checked before each paid model request and each GitHub write."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from dataclasses import dataclass
from typing import Any

from redis.exceptions import RedisError

from reviewbot.errors import LeaseLost

log = logging.getLogger(__name__)
MARGIN_S = 2.0  # a lease this close to its end by our own clock is not trusted when Redis cannot be asked


@dataclass
class Lease:
    """The in-progress key a worker set for a job, the token it wrote there, and until when it was renewed."""

    redis: Any
    key: str
    token: bytes
    valid_until: float  # event loop time: the last successful claim or renewal plus the lease's length
    lost: bool = False

    async def check(self) -> None:
        """Raise LeaseLost unless the key still holds this token. While Redis cannot be reached, the lease is
        trusted until shortly before it would lapse in Redis; no other worker can claim it before then."""
        if not self.lost:
            try:
                self.lost = await self.redis.get(self.key) != self.token
            except (RedisError, OSError):
                self.lost = asyncio.get_running_loop().time() > self.valid_until - MARGIN_S
        if self.lost:
            log.warning("this job's lease lapsed and another worker may run it; it stops here",
                        extra={"key": self.key})
            raise LeaseLost("the job's lease lapsed; another worker took it over")


_LEASE: contextvars.ContextVar[Lease | None] = contextvars.ContextVar("reviewbot_lease", default=None)


def context_under(lease: Lease) -> contextvars.Context:
    """A copy of the current context in which `lease` is the job's lease (for the job's task)."""
    context = contextvars.copy_context()
    context.run(_LEASE.set, lease)
    return context


async def check_lease() -> None:
    """The fencing check: nothing outside a leased job (the web process, the CLI), LeaseLost once it lapsed."""
    lease = _LEASE.get()
    if lease is not None:
        await lease.check()


def lease_lost() -> bool:
    """Whether a fencing check of this job found its lease taken: then the budget hold, the installation slot and
    the check run keyed by the job's id belong to the worker that runs it now, and are left alone."""
    lease = _LEASE.get()
    return lease is not None and lease.lost
