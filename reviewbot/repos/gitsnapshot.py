"""A commit of a local repository as the engine's Snapshot, read straight from git's object store (no checkout)."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from reviewbot.errors import ConfigError
from reviewbot.review.context.snapshot import MAX_TEXT_BYTES

_REGULAR = ("100644", "100755")  # symlinks (120000) and submodules (160000) are not files to read
_FEW = 200  # requests of 41 bytes: well inside a pipe's 64 kB, so writing them all first cannot block


def _text(data: bytes | None) -> str | None:
    if data is None or b"\0" in data[:8000]:
        return None
    return data.decode("utf-8", errors="replace")


class GitSnapshot:
    """Paths and blob ids from one `git ls-tree`, contents from one long-lived `git cat-file --batch`: the
    first review of a repository reads only what the context engine asks for, nothing is extracted to disk."""

    def __init__(self, root: Path, commit: str) -> None:
        self.root = root
        self.commit = commit
        self._blobs: dict[str, str] = {}
        self._paths: list[str] = []
        self._lock = threading.Lock()  # one cat-file process answers one request at a time
        self._proc: subprocess.Popen[bytes] | None = None
        self._list()

    def _list(self) -> None:
        done = subprocess.run(["git", "-C", str(self.root), "ls-tree", "-r", "-z", "-l", "--full-tree",  # noqa: S603, S607
                               self.commit], capture_output=True, check=False, timeout=120)
        if done.returncode != 0:
            raise ConfigError(f"git ls-tree failed: {done.stderr.decode('utf-8', errors='replace').strip()}")
        for entry in done.stdout.split(b"\0"):
            if not entry:
                continue
            meta, _, raw_path = entry.partition(b"\t")
            mode, kind, sha, size = meta.split()
            path = raw_path.decode("utf-8", errors="replace")
            self._paths.append(path)
            if kind == b"blob" and mode.decode() in _REGULAR and int(size) <= MAX_TEXT_BYTES:
                self._blobs[path] = sha.decode()
        self._paths.sort()

    def paths(self) -> Sequence[str]:
        return self._paths

    def blob_ids(self) -> Mapping[str, str]:
        return self._blobs

    def read(self, path: str) -> str | None:
        sha = self._blobs.get(path)
        return None if sha is None else _text(self._cat(sha))

    def read_many(self, paths: Sequence[str]) -> Iterator[tuple[str, str | None]]:
        """Many files with one round trip: a few through the long-lived cat-file (the requests fit in the pipe),
        many through one of their own, its requests written by a thread while the answers are read."""
        wanted = [(p, self._blobs[p]) for p in paths if p in self._blobs]
        if len(wanted) <= _FEW:
            with self._lock:
                proc = self._process()
                assert proc.stdin is not None
                proc.stdin.write(b"".join(sha.encode() + b"\n" for _, sha in wanted))
                proc.stdin.flush()
                answers = [(path, self._answer(proc)) for path, _ in wanted]
            yield from ((path, _text(data)) for path, data in answers)
            return
        proc = subprocess.Popen(["git", "-C", str(self.root), "cat-file", "--batch"],  # noqa: S603, S607
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None
        stdin, stdout = proc.stdin, proc.stdout

        def feed() -> None:
            try:
                stdin.write(b"".join(sha.encode() + b"\n" for _, sha in wanted))
                stdin.close()
            except OSError:
                pass  # the reader stopped early and closed its end

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        try:
            for path, _ in wanted:
                header = stdout.readline().split()
                if len(header) != 3 or header[1] != b"blob":
                    yield path, None
                    continue
                data = stdout.read(int(header[2]))
                stdout.read(1)
                yield path, _text(data)
        finally:
            stdout.close()
            writer.join(timeout=10)
            proc.wait(timeout=10)

    def _process(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            self._proc = subprocess.Popen(["git", "-C", str(self.root), "cat-file", "--batch"],  # noqa: S603, S607
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        return self._proc

    @staticmethod
    def _answer(proc: subprocess.Popen[bytes]) -> bytes | None:
        assert proc.stdout is not None
        header = proc.stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            return None  # "<sha> missing"
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)  # the newline after each object
        return data

    def _cat(self, sha: str) -> bytes | None:
        with self._lock:
            proc = self._process()
            assert proc.stdin is not None
            proc.stdin.write(sha.encode() + b"\n")
            proc.stdin.flush()
            return self._answer(proc)

    def close(self) -> None:
        with self._lock:
            if self._proc is not None:
                if self._proc.stdin is not None:
                    self._proc.stdin.close()
                self._proc.wait(timeout=10)
                self._proc = None
