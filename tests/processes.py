"""Real processes for the fault tests: a Redis that can be killed, `reviewbot serve` and `reviewbot worker`."""

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
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx

from reviewbot.queue.embedded import EmbeddedRedis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(condition: Callable[[], object], timeout: float = 30.0, what: str = "condition",
             every: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


class Process:
    """One `python -m reviewbot ...` subprocess whose output goes to a log file the test can read."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, log: Path,
                 program: list[str] | None = None) -> None:
        """`program` replaces `python -m reviewbot` for a server that is not ours (llama.cpp's)."""
        self.log = log
        command = [*(program if program is not None else [sys.executable, "-m", "reviewbot"]), *args]
        with log.open("ab") as out:
            self.proc = subprocess.Popen(command, env={**os.environ, **env}, cwd=cwd, stdout=out,
                                         stderr=subprocess.STDOUT)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, exactly like the OOM killer or a lost machine."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                return self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        return self.proc.wait(timeout=10)


@contextlib.contextmanager
def worker(env: dict[str, str], cwd: Path, name: str = "worker") -> Iterator[Process]:
    """`reviewbot worker` on the Redis at env["REDIS_URL"]."""
    process = Process(["worker"], env, cwd, cwd / f"{name}.log")
    try:
        yield process
    finally:
        process.stop()


@contextlib.contextmanager
def web(env: dict[str, str], cwd: Path, name: str = "web") -> Iterator[tuple[Process, httpx.Client]]:
    """`reviewbot serve` on a free port; with REDIS_URL set it runs no worker of its own."""
    port = free_port()
    process = Process(["serve", "--port", str(port)], env, cwd, cwd / f"{name}.log")
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            wait_for(lambda: _answers(client), 30, "the web app to start")
            yield process, client
    finally:
        process.stop()


class KillableRedis:
    """The embedded Redis (append-only file) in its own directory, which a test may kill and start again."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="rb-f-", dir="/tmp"))  # short: the socket path must stay legal
        self.server = EmbeddedRedis(self.dir)
        self.url = self.server.url

    def start(self) -> str:
        return self.server.start()

    def kill(self) -> None:
        process = self.server.process
        assert process is not None
        process.kill()
        process.wait(timeout=10)
        self.server.process = None

    def close(self) -> None:
        self.server.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def _answers(client: httpx.Client) -> bool:
    try:
        return client.get("/").status_code == 200
    except httpx.TransportError:
        return False


def leaked(text: str, secrets: list[str]) -> list[str]:
    """The secrets (or any line of a multi-line one, like a PEM key) that appear in `text`."""
    found = []
    for secret in secrets:
        pieces = [secret, *(line for line in secret.splitlines() if len(line) >= 16 and "-----" not in line)]
        if any(piece in text for piece in pieces):
            found.append(secret[:12] + "…")
    return found
