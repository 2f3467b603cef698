"""The repository cache (tarball through the port, safe extraction, LRU) and the layout/calibration stores."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from reviewbot.errors import PermanentError
from reviewbot.repos.cache import RepoCache
from reviewbot.repos.safetar import Limits, extract
from reviewbot.review.prompt.calibration import Calibration
from tests.fakes.github_repos import tarball


def _archive(files: dict[str, bytes], path: Path) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_lru_eviction_keeps_the_cache_under_its_bound(tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "repos", max_bytes=2_500)

    def writer(n: int) -> Callable[[Path], Path]:
        return lambda dest: _archive({f"top/f{n}.txt": b"x" * 1_000}, dest)

    first = cache.checkout_sync("o/r", "a" * 40, writer(1))
    second = cache.checkout_sync("o/r", "b" * 40, writer(2))
    assert cache.cached("o/r", "a" * 40) == first  # a use makes `first` recent, so `second` is evicted next
    cache.checkout_sync("o/r", "c" * 40, writer(3))
    assert first.exists() and not second.exists() and cache.cached("o/r", "b" * 40) is None
    assert (first / "f1.txt").read_bytes() == b"x" * 1_000


def test_a_malicious_archive_cannot_write_outside_the_tree(tmp_path: Path) -> None:
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        def add(name: str, data: bytes = b"pwned", **kw: object) -> None:
            info = tarfile.TarInfo(name)
            info.size = len(data) if not kw else 0
            for key, value in kw.items():
                setattr(info, key, value)
            tar.addfile(info, io.BytesIO(data) if not kw else None)
        add("top/ok.txt", b"fine")
        add("top/../../escaped.txt")
        add("/abs.txt")
        add("top/sub/../../../up.txt")
        add("top/link", type=tarfile.SYMTYPE, linkname="/etc/passwd")
        add("top/dirlink", type=tarfile.SYMTYPE, linkname="../..")
        add("top/hard", type=tarfile.LNKTYPE, linkname="/etc/passwd")
        add("top/fifo", type=tarfile.FIFOTYPE)
        add("top/big.bin", b"z" * 5_000)
    dest = tmp_path / "out" / "tree"
    stats = extract(archive, dest, Limits(max_file_bytes=1_000))
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file() or p.is_symlink())
    assert written == ["evil.tar.gz", "out/tree/ok.txt"]
    assert stats.files == 1 and stats.skipped == {"unsafe path": 3, "link": 3, "special file": 1,
                                                  "file too large": 1}


def test_archive_size_caps_and_corrupt_archives(tmp_path: Path) -> None:
    archive = _archive({f"top/f{i}.txt": b"y" * 100 for i in range(10)}, tmp_path / "a.tar.gz")
    stats = extract(archive, tmp_path / "t1", Limits(max_total_bytes=450))
    assert stats.truncated and stats.files == 4
    (tmp_path / "bad.tar.gz").write_bytes(b"\x1f\x8b not really gzip")
    with pytest.raises(PermanentError, match="could not be read"):
        extract(tmp_path / "bad.tar.gz", tmp_path / "t2")
    assert not (tmp_path / "t2").exists()


def test_the_fake_tarball_looks_like_githubs() -> None:
    data = tarball("acme/widgets", "0123456789abcdef", {"a/b.py": "x\n"})
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        assert tar.pax_headers["comment"] == "0123456789abcdef"
        assert tar.getnames() == ["acme-widgets-0123456", "acme-widgets-0123456/a", "acme-widgets-0123456/a/b.py"]


def test_calibration_is_a_bounded_moving_average() -> None:
    c = Calibration()
    c = c.observe(3_600, 1_000)
    assert c.chars_per_token == 3.6  # the first sample counts fully
    c = c.observe(10_000_000, 1)  # a broken sample is clamped, not trusted
    assert c.chars_per_token < 8.0
    assert Calibration(4.0).observe_estimate(1_000, 1_250).chars_per_token == 3.2
    assert Calibration.from_json({"bad": 1}) == Calibration()


async def test_many_jobs_asking_for_one_commit_at_once_download_it_once(tmp_path: Path) -> None:
    # An audit's chunk jobs reach one worker together and fetch the tree before taking an installation slot.
    import asyncio

    cache, downloads = RepoCache(tmp_path / "repos"), []

    async def download(dest: Path) -> None:
        downloads.append(dest)
        await asyncio.sleep(0.05)  # the tarball on its way: the other jobs arrive meanwhile
        _archive({"top/app.py": b"print(1)\n"}, dest)

    trees = await asyncio.gather(*(cache.checkout("o/r", "d" * 40, download) for _ in range(20)))
    assert len(downloads) == 1 and len(set(trees)) == 1
    assert (trees[0] / "app.py").read_bytes() == b"print(1)\n"


CHILD = """
import asyncio, io, sys, tarfile
from pathlib import Path
from reviewbot.repos.cache import RepoCache

async def download(dest: Path) -> None:
    with open(sys.argv[2], "a") as log:
        log.write("child\\n")
    Path(sys.argv[3]).touch()  # the test may ask now: this process holds the commit's lock
    await asyncio.sleep(1.0)  # a slow tarball: the other worker asks meanwhile
    with tarfile.open(dest, "w:gz") as tar:
        info = tarfile.TarInfo("top/app.py")
        info.size = 9
        tar.addfile(info, io.BytesIO(b"print(1)\\n"))

asyncio.run(RepoCache(Path(sys.argv[1])).checkout("o/r", "e" * 40, download))
"""


async def test_two_workers_sharing_a_data_dir_download_a_commit_once(tmp_path: Path) -> None:
    # Two `reviewbot worker` processes started in one checkout share the repository cache: the second waits for
    # the first's extraction instead of downloading the commit again.
    import asyncio
    import sys

    root, log, started = tmp_path / "repos", tmp_path / "downloads.log", tmp_path / "started"
    child = await asyncio.create_subprocess_exec(sys.executable, "-c", CHILD, str(root), str(log), str(started))
    for _ in range(200):
        if started.exists():
            break
        await asyncio.sleep(0.05)

    async def download(dest: Path) -> None:
        with log.open("a") as f:
            f.write("parent\n")
        _archive({"top/app.py": b"print(2)\n"}, dest)

    tree = await RepoCache(root).checkout("o/r", "e" * 40, download)
    assert await child.wait() == 0
    assert log.read_text() == "child\n"  # one download, by the process that asked first
    assert (tree / "app.py").read_bytes() == b"print(1)\n"
