"""The spine: `reviewbot serve` alone (embedded Redis, in-process worker) turns a webhook into a posted review."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import MODEL_TOKEN, REPO, WEBHOOK_SECRET
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import BUG_LINE, bug_finding, deliver, open_pull, payload


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(condition: Any, timeout: float = 30.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@contextlib.contextmanager
def serve(env: dict[str, str], tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], httpx.Client]]:
    """`python -m reviewbot serve` with the embedded Redis: one command is the whole service."""
    data_dir = tempfile.mkdtemp(prefix="rb-e2e-", dir="/tmp")
    service_env = {**os.environ, **env, "REVIEWBOT_DATA_DIR": data_dir}
    service_env.pop("REDIS_URL")
    port = free_port()
    with (tmp_path / "serve.log").open("wb") as log:
        # Its own process group, as under systemd or in a terminal: a test may signal the whole group.
        proc = subprocess.Popen([sys.executable, "-m", "reviewbot", "serve", "--port", str(port)],
                                env=service_env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as client:
            wait_for(lambda: _healthy(client), 30, "the service to start")
            yield proc, client
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        shutil.rmtree(data_dir, ignore_errors=True)


def test_serve_alone_turns_an_opened_pr_into_a_review_and_a_completed_check_run(
        env: dict[str, str], fake_github: FakeGitHub, fake_model: FakeModel, tmp_path: Path) -> None:
    pull = open_pull(fake_github)
    fake_model.script_reply(findings_json([bug_finding()], "The new total() is really an average."))
    with serve(env, tmp_path) as (_, client):
        started = time.monotonic()
        response = deliver(client, "pull_request", payload("pull_request.opened", pull))
        assert response.status_code == 202, response.text
        assert time.monotonic() - started < 1.0  # the request only enqueues
        wait_for(lambda: _completed(fake_github), 30, "the check run to complete")
    log_path = tmp_path / "serve.log"

    reviews = fake_github.reviews[(REPO, 7)]
    assert len(reviews) == 1
    review = reviews[0]
    assert review["event"] == "COMMENT" and review["commit_id"] == pull["head"]["sha"]
    [comment] = review["comments"]
    assert (comment["path"], comment["line"], comment["side"]) == ("app/calc.py", BUG_LINE, "RIGHT")
    assert "divides by the item count" in comment["body"] and "```suggestion" in comment["body"]

    [check] = fake_github.check_runs.values()
    assert check["name"] == "reviewbot" and check["head_sha"] == pull["head"]["sha"]
    assert [h.get("status") for h in check["history"]] == ["queued", "in_progress", "completed"]
    assert check["status"] == "completed" and check["conclusion"] == "neutral"  # a major finding

    [request] = fake_model.review_requests()  # then one verification request (a major finding)
    assert request.headers["authorization"] == f"Bearer {MODEL_TOKEN}"
    assert request.headers["x-session-affinity"].startswith("ses_")
    assert request.json["response_format"]["type"] == "json_schema"

    logs = log_path.read_text()
    assert "review finished" in logs
    for secret in (WEBHOOK_SECRET, MODEL_TOKEN, env["GITHUB_PRIVATE_KEY"].splitlines()[1]):
        assert secret not in logs


def test_sigterm_lets_a_running_review_finish_before_exiting(
        env: dict[str, str], fake_github: FakeGitHub, fake_model: FakeModel, tmp_path: Path) -> None:
    pull = open_pull(fake_github)
    fake_model.script_delay(2.0)
    fake_model.script_reply(findings_json([bug_finding()]))
    with serve(env, tmp_path) as (proc, client):
        assert deliver(client, "pull_request", payload("pull_request.opened", pull)).status_code == 202
        wait_for(lambda: len(fake_model.requests) == 1, 30, "the model call to start")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) in (0, -signal.SIGTERM)  # uvicorn re-raises the signal after shutdown
    assert len(fake_github.reviews[(REPO, 7)]) == 1
    assert _completed(fake_github)


def test_sigterm_to_the_process_group_lets_a_running_review_finish_with_the_embedded_redis(
        env: dict[str, str], fake_github: FakeGitHub, fake_model: FakeModel, tmp_path: Path) -> None:
    # systemd's stop and a terminal's Ctrl-C signal every process of the group, the embedded redis-server too:
    # it must outlive the worker's graceful close, or the running review cannot finish.
    pull = open_pull(fake_github)
    fake_model.script_delay(3.0)
    fake_model.script_reply(findings_json([bug_finding()]))
    with serve(env, tmp_path) as (proc, client):
        assert deliver(client, "pull_request", payload("pull_request.opened", pull)).status_code == 202
        wait_for(lambda: len(fake_model.requests) == 1, 30, "the model call to start")
        os.killpg(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=60) in (0, -signal.SIGTERM)
    assert len(fake_github.reviews[(REPO, 7)]) == 1
    assert _completed(fake_github)
    logs = (tmp_path / "serve.log").read_text()
    assert "review finished" in logs and "shutdown failed" not in logs


def _healthy(client: httpx.Client) -> bool:
    try:
        return client.get("/readyz").status_code == 200
    except httpx.TransportError:
        return False


def _completed(github: FakeGitHub) -> bool:
    return any(run["status"] == "completed" for run in github.check_runs.values())
