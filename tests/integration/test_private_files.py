"""The data directory is the service user's alone: Redis's append-only file holds cached installation tokens."""

from __future__ import annotations

import shutil
import stat
import tempfile
import time
from pathlib import Path

from redis import Redis

from reviewbot.queue.embedded import EmbeddedRedis
from reviewbot.state.prompt_stores import FileStores


def _modes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): stat.S_IMODE(p.stat().st_mode) for p in [root, *root.rglob("*")]
            if not p.is_socket()}


def test_the_data_directory_is_0700_and_its_files_0600_even_when_an_older_version_left_them_open() -> None:
    data = Path(tempfile.mkdtemp(prefix="rb-modes-", dir="/tmp"))
    try:
        data.chmod(0o755)  # as versions before this one left it
        (data / "appendonlydir").mkdir(mode=0o755)
        old = data / "appendonlydir" / "appendonly.aof.1.base.rdb"
        old.write_bytes(b"")
        old.chmod(0o644)
        server = EmbeddedRedis(data)
        client = Redis.from_url(server.start())
        try:
            client.set("reviewbot:token:1", "ghs_cached-installation-token")  # what the AOF would hold
            client.execute_command("BGREWRITEAOF")
            time.sleep(0.5)
        finally:
            client.close()
            server.stop()
        FileStores(data).observe("m", 4_000, 1_000)  # the CLI's stores write under the same directory
        modes = _modes(data)
        assert any(name.startswith("appendonlydir/appendonly.aof") for name in modes)
        assert {m for n, m in modes.items() if (data / n).is_dir()} == {0o700}, modes
        assert {m for n, m in modes.items() if (data / n).is_file()} == {0o600}, modes
    finally:
        shutil.rmtree(data, ignore_errors=True)
