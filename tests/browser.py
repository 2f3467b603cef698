"""Headless Chromium from the system (Debian's `chromium`), driven by its own command-line switches."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

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
