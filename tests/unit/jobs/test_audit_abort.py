"""An audit job's unexpected end frees the branch; arq's Retry and a lost lease keep it; the exception escapes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from arq import Retry

from reviewbot.errors import GitHubError, LeaseLost
from reviewbot.jobs.audit.audit_abort import released_on_failure


class Store:
    """The lock's two calls, recorded (the real AuditStore needs Redis: the integration tests use it)."""

    def __init__(self) -> None:
        self.unlocked: list[tuple[str, str, str]] = []

    async def unlock(self, repo: str, branch: str, audit_id: str) -> None:
        self.unlocked.append((repo, branch, audit_id))


async def run(exc: BaseException, told: list[str], tell_fails: bool = False) -> Store:
    store = Store()

    async def tell(why: str) -> None:
        told.append(why)
        if tell_fails:
            raise GitHubError("502 Bad Gateway")

    store_any: Any = store
    with pytest.raises(type(exc)):
        async with released_on_failure(store_any, "o/r", "main", "a1", tell):
            raise exc
    return store


async def test_an_unexpected_exception_releases_the_lock_tells_its_class_and_is_re_raised() -> None:
    told: list[str] = []
    store = await run(KeyError("sha"), told)
    assert store.unlocked == [("o/r", "main", "a1")] and len(told) == 1 and "KeyError" in told[0]
    assert "sha" not in told[0]  # the message may quote code or tokens: only the class is told


async def test_a_failing_answer_does_not_hide_the_exception_that_ended_the_job() -> None:
    told: list[str] = []
    store = await run(ValueError("boom"), told, tell_fails=True)
    assert store.unlocked and told


@pytest.mark.parametrize("exc", [Retry(defer=5), LeaseLost("another worker")])
async def test_a_retry_or_a_lost_lease_keeps_the_lock(exc: BaseException) -> None:
    told: list[str] = []
    store = await run(exc, told)
    assert store.unlocked == [] and told == []


async def test_a_cancellation_releases_the_lock_and_tells_nothing() -> None:
    told: list[str] = []  # arq runs a cancelled job again: "could not start" would be wrong
    store = await run(asyncio.CancelledError(), told)
    assert store.unlocked == [("o/r", "main", "a1")] and told == []
