"""Faults with real processes: a worker SIGKILLed mid-review, Redis restarted under a running service.

Each test runs `reviewbot worker` (and `reviewbot serve` where a separate process matters) as subprocesses
against the fakes, and checks what a user sees on the pull request: one review, one check run that completed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from redis import Redis
from redis.exceptions import RedisError

from reviewbot.queue.embedded import EmbeddedRedis
from tests.conftest import MODEL_TOKEN, REPO, WEBHOOK_SECRET
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import BASE_CALC, HEAD_CALC, bug_finding, deliver, open_pull, payload
from tests.processes import KillableRedis, free_port, leaked, wait_for, web, worker


def secrets_of(env: dict[str, str], github: FakeGitHub) -> list[str]:
    return [env["GITHUB_PRIVATE_KEY"], WEBHOOK_SECRET, MODEL_TOKEN, *github.tokens]


def completed_runs(github: FakeGitHub) -> list[dict[str, Any]]:
    return [run for run in github.check_runs.values() if run["status"] == "completed"]


@pytest.mark.parametrize("moment", ["during the model call", "after the review was posted"])
def test_a_killed_worker_s_review_is_taken_up_by_another_worker_within_a_minute_and_lands_once(
        moment: str, env: dict[str, str], web: httpx.Client, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    # The default job timeout: recovery waits for the job's short in-progress lease to lapse, not for the timeout
    # (a third of the default lease: the live first worker renews it every 1.7 s, loaded machine or not).
    env = env | {"REVIEWBOT_JOB_TIMEOUT": "900", "REVIEWBOT_WRITE_INTERVAL": "0.5", "REVIEWBOT_JOB_LEASE": "5"}
    pull = open_pull(fake_github)
    if moment == "during the model call":
        fake_model.script_delay(30)  # the first worker dies while this answer is still on its way
        fake_model.script_reply(findings_json([bug_finding()]))
    else:  # GitHub stores the review, and the first worker dies before its answer arrives
        fake_github.slow("POST", f"/repos/{REPO}/pulls/7/reviews", 20)
    fake_model.script_reply(findings_json([bug_finding()]))
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202

    with worker(env, tmp_path, "first") as first:
        if moment == "during the model call":
            wait_for(lambda: len(fake_model.requests) == 1, 30, "the model call", every=0.01)
        else:
            wait_for(lambda: fake_github.reviews[(REPO, 7)], 30, "the review", every=0.01)
        with worker(env, tmp_path, "second") as second:
            wait_for(lambda: "worker started" in second.text(), 30, "the second worker to start")
            first.kill()
            killed = time.monotonic()
            assert not completed_runs(fake_github)  # it really died in the middle
            wait_for(lambda: completed_runs(fake_github), 60, "the check run to complete")
            recovered = time.monotonic() - killed
    print(f"\nkilled {moment}: review completed by the second worker {recovered:.1f} s after the kill")
    assert recovered < 60
    assert "try=2" in second.text()  # arq ran the same job again

    [review] = fake_github.reviews[(REPO, 7)]
    assert [c["line"] for c in review["comments"]] == [bug_finding()["line"]]
    [check] = fake_github.check_runs.values()
    assert check["status"] == "completed"
    assert [h.get("status") for h in check["history"]].count("completed") == 1
    # Killed mid-call, the re-run asks the model again (see Limits in the README); killed after posting, the
    # re-run finds its own review and only completes the check run with the result it had planned.
    assert len(fake_model.review_requests()) == (2 if moment == "during the model call" else 1)
    assert leaked(first.text() + second.text(), secrets_of(env, fake_github)) == []


def test_redis_restarted_under_a_running_service(env: dict[str, str], fake_github: FakeGitHub,
                                                 fake_model: FakeModel, tmp_path: Path) -> None:
    redis = KillableRedis()
    env = env | {"REDIS_URL": redis.start(), "REVIEWBOT_JOB_TIMEOUT": "5", "REVIEWBOT_INSTALLATION_CONCURRENCY": "1"}
    pulls = [fake_github.add_pull(REPO, n, base_files={"app/calc.py": BASE_CALC}, title=f"Change {n}",
                                  head_files={"app/calc.py": HEAD_CALC + f"# {n}\n"}) for n in (7, 8, 9, 10)]
    fake_model.script_delay(3)  # PR 7's review is waiting for the model while Redis goes away
    try:
        with web(env, tmp_path) as (_, client), worker(env, tmp_path) as service_worker:
            for pull in pulls[:3]:
                assert deliver(client, "pull_request", payload("pull_request.opened", pull)).status_code == 202
            wait_for(lambda: len(fake_model.requests) == 1, 30, "the first review to reach the model")
            with Redis.from_url(redis.url) as r:
                assert r.zcard("arq:queue") == 3  # 7 running, 8 and 9 waiting for the installation's slot
            redis.kill()

            down = deliver(client, "pull_request", payload("pull_request.opened", pulls[3]), delivery="guid-10")
            assert down.status_code == 503
            assert client.get("/readyz").status_code == 503
            wait_for(lambda: fake_model.requests[0].finished, 10, "the model to answer while Redis is down")
            redis.start()  # the same append-only file: the queue is back

            wait_for(lambda: client.get("/readyz").json()["redis"] == "ok", 10, "the web app to reconnect")
            again = deliver(client, "pull_request", payload("pull_request.opened", pulls[3]), delivery="guid-10")
            assert again.status_code == 202 and again.json()["status"] == "queued"
            wait_for(lambda: len(completed_runs(fake_github)) == 4, 60, "all four reviews")
            assert service_worker.proc.poll() is None  # the worker rode it out
        logs = (tmp_path / "web.log").read_text() + (tmp_path / "worker.log").read_text()
    finally:
        redis.close()

    for n in (7, 8, 9, 10):
        assert len(fake_github.reviews[(REPO, n)]) == 1, n
    assert len(fake_github.check_runs) == 4
    assert "Traceback" not in logs
    assert leaked(logs, secrets_of(env, fake_github)) == []


def unusable_dir_command(kind: str, data_dir: Path, args: list[str]) -> list[str]:
    """`python -m reviewbot ARGS` with `data_dir` read-only or full. Root writes through file modes, so as root
    the directory is a tiny tmpfs in a private mount namespace (it vanishes with the process)."""
    command = [sys.executable, "-m", "reviewbot", *args]
    data_dir.mkdir()
    if os.geteuid() != 0:
        if kind == "full":
            pytest.skip("filling a file system needs root (a tmpfs) here; the read-only case still runs")
        data_dir.chmod(0o500)
        return command
    if shutil.which("unshare") is None or subprocess.run(["unshare", "--mount", "true"], capture_output=True,
                                                           check=False).returncode != 0:
        pytest.skip("running as root without mount namespaces: cannot make a directory unwritable")
    prepare = {"read-only": 'mount -o remount,ro "$0"',
               "full": 'dd if=/dev/zero of="$0/fill" bs=4k 2>/dev/null; true'}[kind]
    script = f'mount -t tmpfs -o size=64k tmpfs "$0" && {prepare} && exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, str(data_dir), *command]


@pytest.mark.parametrize("kind", ["read-only", "full"])
@pytest.mark.parametrize("command", ["serve", "worker"])
def test_an_unusable_data_dir_at_start_is_a_clear_error(kind: str, command: str, env: dict[str, str],
                                                        tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    service_env = {**os.environ, **env, "REVIEWBOT_DATA_DIR": str(data_dir)}
    service_env.pop("REDIS_URL")  # the embedded Redis keeps its append-only file in the data dir
    args = [command, "--port", "0"] if command == "serve" else [command]
    done = subprocess.run(unusable_dir_command(kind, data_dir, args), env=service_env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)
    reason = {"read-only": ("Read-only file system", "Permission denied"), "full": ("No space left on device",)}[kind]
    assert done.returncode == 1, done.stderr
    assert f"REVIEWBOT_DATA_DIR {data_dir} is not writable" in done.stderr
    assert any(r in done.stderr for r in reason) and "Traceback" not in done.stderr


def test_a_redis_that_does_not_answer_at_start_is_a_clear_error(env: dict[str, str], tmp_path: Path) -> None:
    service_env = {**os.environ, **env, "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"}  # nothing listens there
    started = [subprocess.Popen([sys.executable, "-m", "reviewbot", *args], env=service_env, cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for args in (["serve", "--port", "0"], ["worker"])]
    for process in started:
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 1, stderr
        assert "the Redis at REDIS_URL does not answer (ConnectionError)" in stderr and "Traceback" not in stderr


def test_a_worker_whose_data_dir_is_read_only_reviews_without_the_repository_cache(
        env: dict[str, str], web: httpx.Client, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    data_dir = tmp_path / "ro-data"
    fake_model.script_reply(findings_json([bug_finding()]))
    assert deliver(web, "pull_request", payload("pull_request.opened", open_pull(fake_github))).status_code == 202
    command = unusable_dir_command("read-only", data_dir, ["worker"])
    with (tmp_path / "worker.log").open("wb") as log:
        process = subprocess.Popen(command, env={**os.environ, **env, "REVIEWBOT_DATA_DIR": str(data_dir)},
                                   cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: completed_runs(fake_github), 30, "the check run to complete")
    finally:
        process.terminate()
        process.wait(timeout=30)
    [review] = fake_github.reviews[(REPO, 7)]
    assert len(review["comments"]) == 1
    assert "repository archive unavailable, using the contents API" in (tmp_path / "worker.log").read_text()


def test_sigterm_stops_serve_and_its_embedded_redis(env: dict[str, str], tmp_path: Path) -> None:
    # uvicorn re-raises SIGTERM after its graceful shutdown: the process used to die there and leave Redis running.
    data_dir = Path(tempfile.mkdtemp(prefix="rb-t-", dir="/tmp"))  # short: the socket path must stay legal
    socket_path = EmbeddedRedis(data_dir).socket_path
    service_env = {k: v for k, v in env.items() if k != "REDIS_URL"} | {"REVIEWBOT_DATA_DIR": str(data_dir)}
    try:
        with web(service_env, tmp_path) as (service, client):
            assert client.get("/readyz").json()["redis"] == "ok" and pings(socket_path)
            service.proc.terminate()
            assert service.proc.wait(timeout=30) == 0
        assert not pings(socket_path)
    finally:
        if pings(socket_path):  # the bug came back: stop the Redis it left behind
            with Redis(unix_socket_path=str(socket_path)) as r:
                r.shutdown(nosave=True)
        shutil.rmtree(data_dir, ignore_errors=True)


def pings(path: Path) -> bool:
    try:
        with Redis(unix_socket_path=str(path), socket_timeout=1) as r:
            return bool(r.ping())
    except RedisError:
        return False
