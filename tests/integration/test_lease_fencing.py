"""Lease fencing: a worker whose job lease lapsed while it was stalled stops before paying or posting again.

The first test runs two `reviewbot worker` processes on the embedded Redis; the first is frozen (SIGSTOP: an event
loop blocked longer than the lease) while its model request is on its way, the second takes the job over and posts
the review, then the first is let go. The second checks one lease's fencing token against the embedded Redis.
"""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import httpx
import pytest
from redis.asyncio import Redis

from reviewbot.errors import LeaseLost
from reviewbot.observe.fencing import Lease, check_lease, context_under
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import bug_finding, deliver, open_pull, payload
from tests.processes import wait_for, worker


def test_a_worker_that_lost_its_lease_neither_pays_nor_posts_again(
        env: dict[str, str], web: httpx.Client, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    lease_s = 5  # a third of the default: the frozen worker's lease lapses sooner, nothing else changes
    env = env | {"REVIEWBOT_JOB_TIMEOUT": "900", "REVIEWBOT_WRITE_INTERVAL": "0.5", "REVIEWBOT_JOB_LEASE": str(lease_s)}
    pull = open_pull(fake_github)
    fake_model.script_delay(lease_s + 3)  # the first worker's answer arrives after its lease has lapsed
    fake_model.script_reply(findings_json([bug_finding()]))
    fake_model.script_reply(findings_json([bug_finding()]))
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202

    with worker(env, tmp_path, "first") as first:
        wait_for(lambda: len(fake_model.requests) == 1, 30, "the first worker's model call", every=0.01)
        first.proc.send_signal(signal.SIGSTOP)  # a blocked event loop: no lease renewal for longer than the lease
        try:
            with worker(env, tmp_path, "second") as second:
                wait_for(lambda: any(r["status"] == "completed" for r in fake_github.check_runs.values()), 90,
                         "the second worker to take the job over and finish it")
        finally:
            first.proc.send_signal(signal.SIGCONT)  # the second worker has stopped: what asks from now is the first
            resumed = time.monotonic()
        wait_for(lambda: fake_model.requests[0].finished, 30, "the first worker's answer to arrive")
        wait_for(lambda: "← reviewbot:review:" in first.text(), 60, "the first worker's run of the job to end")

    assert len(fake_github.reviews[(REPO, 7)]) == 1  # one review, posted by the second worker
    # The first worker's request was in flight (paid, and charged); after its answer it asked nothing more.
    assert [r.started < resumed for r in fake_model.requests] == [True] * len(fake_model.requests)
    assert "lease lost" in first.text() and "new holder finishes it" in first.text()
    assert "lease lost" not in second.text()
    [check] = fake_github.check_runs.values()
    assert [h.get("status") for h in check["history"]].count("completed") == 1
    assert "try=2" in second.text()  # arq ran the same job again, on the second worker
    assert "Traceback" not in first.text() + second.text()


async def test_a_lease_holds_while_its_token_is_in_redis_and_is_lost_once_another_worker_claims_it(
        redis_url: str) -> None:
    async with Redis.from_url(redis_url) as redis:
        await redis.set("arq:in-progress:job", b"mine", px=15_000)
        lease = Lease(redis, "arq:in-progress:job", b"mine", asyncio.get_running_loop().time() + 15)
        await context_under(lease).run(asyncio.create_task, check_lease())  # held: nothing raised
        await redis.set("arq:in-progress:job", b"theirs", px=15_000)  # lapsed, claimed by another worker
        with pytest.raises(LeaseLost):
            await lease.check()
        assert lease.lost
        await check_lease()  # outside a leased job (the web process, the CLI) there is nothing to check


async def test_while_redis_is_unreachable_a_lease_is_trusted_only_until_shortly_before_it_would_lapse() -> None:
    unreachable = Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.5)
    now = asyncio.get_running_loop().time()
    await Lease(unreachable, "k", b"t", now + 10).check()  # renewed 5 s ago: nobody can have claimed it yet
    with pytest.raises(LeaseLost):
        await Lease(unreachable, "k", b"t", now + 1).check()  # it may have lapsed in Redis by now
    await unreachable.aclose()
