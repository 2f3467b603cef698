"""Headless Chromium from the system (Debian's `chromium`), driven by its command-line switches or DevTools."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# No sandbox (root in CI), no GPU, and nothing that phones home: this machine has no network but loopback.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--hide-scrollbars", "--mute-audio"]


def find_chromium() -> str | None:
    return next((path for name in ("chromium", "chromium-browser", "google-chrome")
                 if (path := shutil.which(name))), None)


def chromium(binary: str, *args: str, timeout: float = 60) -> str:
    """Run Chromium once with a new empty profile; returns its stdout (the DOM for --dump-dom)."""
    with tempfile.TemporaryDirectory(prefix="rb-chromium-") as profile:
        done = subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise RuntimeError(f"chromium exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def dump_dom(binary: str, url: str) -> str:
    # The virtual time budget lets a page's own navigations (a submitted form, a redirect) finish first.
    return chromium(binary, "--virtual-time-budget=5000", "--dump-dom", url)


def screenshot(binary: str, url: str, path: Path, width: int = 1280, height: int = 1000) -> None:
    chromium(binary, "--virtual-time-budget=5000", f"--window-size={width},{height}", f"--screenshot={path}", url)


@dataclass
class Inspected:
    value: Any  # what the expression returned
    log: list[tuple[str, str]] = field(default_factory=list)  # (url, text) logged while loading: CSP refusals, 404s


def inspect(binary: str, url: str, expression: str, timeout: float = 60) -> Inspected:
    """Load `url`, then evaluate `expression` in it through the DevTools protocol: the page's own CSP forbids
    scripts, and DevTools is not bound by it. The protocol runs over --remote-debugging-pipe (fds 3 and 4)
    because no websocket client is installed."""
    commands, replies = os.pipe(), os.pipe()
    # High copies, so that moving them onto 3 and 4 in the child cannot overwrite one with the other.
    theirs = [fcntl.fcntl(commands[0], fcntl.F_DUPFD_CLOEXEC, 10), fcntl.fcntl(replies[1], fcntl.F_DUPFD_CLOEXEC, 10)]
    with tempfile.TemporaryDirectory(prefix="rb-chromium-", ignore_cleanup_errors=True) as profile:
        process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=False,
            start_new_session=True, preexec_fn=lambda: (os.dup2(theirs[0], 3), os.dup2(theirs[1], 4)))
        for fd in (*theirs, commands[0], replies[1]):
            os.close(fd)
        devtools = _DevTools(commands[1], replies[0], time.monotonic() + timeout)
        try:
            return devtools.inspect(url, expression)
        finally:
            with contextlib.suppress(OSError):  # its helpers still write to the profile: let it end them
                devtools.send("Browser.close", None)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            os.close(commands[1])
            os.close(replies[0])


class _DevTools:
    """Requests and answers are JSON objects, each ended by a NUL byte."""

    def __init__(self, write_fd: int, read_fd: int, deadline: float) -> None:
        self.write_fd, self.read_fd, self.deadline = write_fd, read_fd, deadline
        self.buffer, self.next_id = b"", 0
        self.events: list[dict[str, Any]] = []

    def inspect(self, url: str, expression: str) -> Inspected:
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Log"):
            self.call(f"{domain}.enable", session)
        self.call("Page.navigate", session, url=url)
        self.wait_for("Page.loadEventFired")
        result = self.call("Runtime.evaluate", session, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise RuntimeError(f"{expression} failed: {details.get('exception', details).get('description')}")
        entries = [e["params"]["entry"] for e in self.events if e.get("method") == "Log.entryAdded"]
        log = [(entry.get("url", ""), entry["text"]) for entry in entries]
        return Inspected(result["result"].get("value"), log)

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        answer = self.wait_for(None, self.send(method, session, **params))
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return dict(answer["result"])

    def send(self, method: str, session: str | None, **params: Any) -> int:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        return self.next_id

    def wait_for(self, event: str | None, answer_id: int | None = None) -> dict[str, Any]:
        while True:
            while b"\0" not in self.buffer:
                left = self.deadline - time.monotonic()
                if left <= 0 or not select.select([self.read_fd], [], [], left)[0]:
                    raise TimeoutError(f"chromium: no {event or answer_id} in time")
                chunk = os.read(self.read_fd, 65536)
                if not chunk:
                    raise RuntimeError("chromium closed its DevTools pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            message: dict[str, Any] = json.loads(raw)
            if answer_id is not None and message.get("id") == answer_id:
                return message
            self.events.append(message)
            if event is not None and message.get("method") == event:
                return message
