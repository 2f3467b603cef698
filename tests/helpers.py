"""Small helpers shared by tests: signed webhook deliveries, a PR with a known bug, a burst worker."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
from arq import Worker

from reviewbot.jobs.registry import service_worker
from reviewbot.settings import Settings
from reviewbot.webhooks.signature import sign
from tests.conftest import INSTALLATION, REPO, WEBHOOK_SECRET
from tests.fakes.github import FakeGitHub

FIXTURES = Path(__file__).parent / "fixtures"
# An in-process worker looks at the queue every 20 ms (the service: 200 ms): a job deferred for a fraction of a
# second, as the tests' short retry delays defer them, runs again without waiting out a poll.
TEST_POLL_S = 0.02

BASE_CALC = "def total(items):\n    return sum(i.price for i in items)\n\n\ndef count(items):\n    return len(items)\n"
HEAD_CALC = ("def total(items):\n    result = 0\n    for i in items:\n        result += i.price\n"
             "    return result / len(items)\n\n\ndef count(items):\n    return len(items)\n")
BUG_LINE = 5  # "return result / len(items)" in the head version


def open_pull(github: FakeGitHub, number: int = 7, **kw: Any) -> dict[str, Any]:
    return github.add_pull(REPO, number, base_files={"app/calc.py": BASE_CALC},
                           head_files={"app/calc.py": HEAD_CALC}, title="Rewrite total", **kw)


def payload(name: str, pull: dict[str, Any] | None = None) -> dict[str, Any]:
    """A recorded webhook payload, pointed at a fake PR's number and SHAs."""
    data: dict[str, Any] = json.loads((FIXTURES / "webhooks" / f"{name}.json").read_text())
    if "installation" in data:
        data["installation"]["id"] = INSTALLATION
    if pull is None:
        return data
    number, head, base = pull["number"], pull["head"]["sha"], pull["base"]["sha"]
    if "pull_request" in data:
        data["number"] = number
        data["pull_request"] |= {"number": number, "head": {**data["pull_request"]["head"], "sha": head},
                                 "base": {**data["pull_request"]["base"], "sha": base}}
    if "issue" in data:
        data["issue"]["number"] = number
    for key in ("check_run", "check_suite"):
        if key in data:
            data[key]["head_sha"] = head
            data[key]["pull_requests"] = [{"number": number, "head": {"sha": head}, "base": {"sha": base}}]
    return data


def comment(github: FakeGitHub, pull: dict[str, Any], body: str, *, login: str = "maintainer-mo",
            association: str = "MEMBER", user_type: str = "User") -> dict[str, Any]:
    """An issue_comment.created delivery for a comment that now exists on the fake PR; unless the test set the
    author's permission, it is the one the association usually means (a MEMBER may still be set to read)."""
    github.permissions.setdefault(login, {"OWNER": "admin", "MEMBER": "write", "COLLABORATOR": "write"}.get(
        association, "read"))
    stored = github.add_issue_comment(REPO, pull["number"], body, author=login)
    data = payload("issue_comment.created", pull)
    data["comment"] |= {"id": stored["id"], "body": body, "author_association": association,
                        "user": {"login": login, "id": 99, "type": user_type}}
    return data


def deliver(client: httpx.Client, event: str, body: dict[str, Any] | bytes, *, secret: str = WEBHOOK_SECRET,
            delivery: str | None = None, headers: dict[str, str] | None = None) -> httpx.Response:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(secret, raw), "Content-Type": "application/json",
            "User-Agent": "GitHub-Hookshot/test"} | (headers or {})
    return client.post("/webhooks/github", content=raw, headers=sent)


def bug_finding(**overrides: Any) -> dict[str, Any]:
    return {"path": "app/calc.py", "line": BUG_LINE, "start_line": None, "side": "RIGHT", "severity": "major",
            "category": "bug", "title": "total() now divides by the item count",
            "body": "`total` returns an average and fails with ZeroDivisionError on an empty list.",
            "suggestion": "    return result", "confidence": 0.92} | overrides


async def run_worker_until_idle(settings: Settings, redis_url: str) -> None:
    """Run a real arq worker in burst mode: it processes every queued job, then returns."""
    worker = service_worker(settings, redis_url, burst=True, handle_signals=False, poll_delay=TEST_POLL_S)
    try:
        await worker.async_run()
    finally:
        await worker.close()


@contextlib.asynccontextmanager
async def background_worker(settings: Settings, redis_url: str,
                            ctx: dict[str, Any] | None = None) -> AsyncIterator[Worker]:
    """A real arq worker running in this event loop while the test sends webhooks (`ctx`: prebuilt deps)."""
    worker = service_worker(settings, redis_url, handle_signals=False, ctx=ctx, poll_delay=TEST_POLL_S)
    task = asyncio.create_task(worker.async_run())
    try:
        yield worker
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await worker.close()


async def eventually(condition: Callable[[], bool], timeout: float = 20.0, what: str = "condition") -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)
