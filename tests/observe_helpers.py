"""Helpers for the observability tests: scrape /metrics, read the ledger, run a worker in another process."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families
from redis.asyncio import Redis

from reviewbot.inference.pricing import cost
from reviewbot.observe.ledger import Entry, Ledger
from reviewbot.settings.catalogue import DEFAULT_PRICES
from tests.fakes.model import FakeModel

ROOT = Path(__file__).resolve().parent.parent
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]

WORKER = """
import asyncio, os
from reviewbot.settings import Settings
from tests.helpers import run_worker_until_idle
asyncio.run(run_worker_until_idle(Settings.from_mapping(os.environ), os.environ["REDIS_URL"]))
"""


def scrape(client: httpx.Client, **headers: str) -> Samples:
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {(s.name, frozenset(s.labels.items())): float(s.value)
            for family in text_string_to_metric_families(response.text) for s in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def worker_in_another_process(env: dict[str, str]) -> None:
    """A real arq worker in its own Python process, in burst mode: the web app's process shares nothing with it
    but Redis."""
    done = subprocess.run([sys.executable, "-c", WORKER], env={**os.environ, **env}, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]


async def ledger_entries(redis_url: str) -> list[Entry]:
    redis = Redis.from_url(redis_url)
    try:
        return [e async for e in Ledger(redis, 90).entries()]
    finally:
        await redis.aclose()


def served_totals(model: FakeModel) -> dict[str, float]:
    """What the fake model answered, summed: the truth the metrics and the ledger must agree with."""
    totals = {"prompt": 0.0, "cached": 0.0, "completion": 0.0, "cost": 0.0, "requests": 0.0}
    for served in model.served:
        u: dict[str, Any] = served["usage"]
        prompt, cached = u["prompt_tokens"], u["prompt_tokens_details"]["cached_tokens"]
        totals["prompt"] += prompt
        totals["cached"] += cached
        totals["completion"] += u["completion_tokens"]
        totals["cost"] += cost(DEFAULT_PRICES[served["model"]], prompt, cached, u["completion_tokens"])
        totals["requests"] += 1
    return totals


def run_in_terminal(args: list[str], env: dict[str, str], cwd: Path, *, stdout_too: bool) -> tuple[str, str]:
    """Run `python -m reviewbot ARGS` with stderr (and stdout, if asked) on a pseudo-terminal 160 columns wide;
    returns (piped stdout, what the terminal showed)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CLOUDFLARE_", "REVIEWBOT_"))}
    proc = subprocess.Popen([sys.executable, "-m", "reviewbot", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=slave if stdout_too else subprocess.PIPE, stderr=slave,
                            env=clean | {"TERM": "xterm-256color", "COLUMNS": "160"} | env)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    piped = proc.stdout.read().decode() if proc.stdout is not None else ""
    assert proc.wait(timeout=60) == 0, shown.decode(errors="replace")[-3000:]
    return piped, shown.decode(errors="replace")
