"""The repository cache (tarball through the port, safe extraction, LRU) and the layout/calibration stores."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
from redis.asyncio import Redis

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.port import GitHubPort
from reviewbot.errors import PermanentError
from reviewbot.repos.cache import DirSnapshot, RepoCache
from reviewbot.repos.safetar import Limits, extract
from reviewbot.review.prompt.calibration import Calibration
from reviewbot.review.prompt.layout import BlockSpec, Layout
from reviewbot.settings import Settings
from reviewbot.stores import FileStores, RedisStores
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.github_repos import tarball


async def test_the_base_tree_is_downloaded_once_and_reused(settings: Settings, fake_github: FakeGitHub,
                                                           tmp_path: Path) -> None:
    base = {"app/calc.py": "def total():\n    return 1\n", "README.md": "# widgets\n", "docs/a/b.md": "deep\n"}
    pull = fake_github.add_pull(REPO, 3, base_files=base, head_files={**base, "README.md": "# new\n"})
    assert settings.github_app_id and settings.github_private_key
    tokens = InstallationTokens(settings.github_app_id, settings.github_private_key, settings.github_api_url)
    port = GitHubPort(await tokens.get(INSTALLATION), settings.github_api_url)
    cache = RepoCache(tmp_path / "repos")
    sha = pull["base"]["sha"]

    async def download(dest: Path) -> None:
        await port.download_tarball(REPO, sha, dest, 10_000_000)

    tree = await cache.checkout(REPO, sha, download)
    again = await cache.checkout(REPO, sha, download)
    assert tree == again and tree.is_relative_to(tmp_path / "repos")
    snapshot = DirSnapshot(tree)
    assert list(snapshot.paths()) == sorted(base) and snapshot.read("app/calc.py") == base["app/calc.py"]
    archive_requests = [r for r in fake_github.requests if "/tarball/" in r.path or "/_codeload/" in r.path]
    assert [r.path.split("/")[1] for r in archive_requests] == ["repos", "_codeload"]  # one download, reused
    # The codeload redirect carries its own token: the installation token is not sent there.
    codeload = archive_requests[1]
    assert "authorization" not in codeload.headers and "token" in codeload.query
    port.close()


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


async def test_layouts_and_calibration_survive_in_redis_and_in_files(redis_url: str, tmp_path: Path) -> None:
    layout = Layout(context=(BlockSpec("a.py", ((1, 5),), "why"), BlockSpec("b.py", None, "because")),
                    diff_order=("c.py",), blocks=(("system", "abc", 10),))
    client = Redis.from_url(redis_url)
    redis = RedisStores(client)
    await redis.save_layout("pr:acme/widgets#1", layout)
    assert await redis.load_layout("pr:acme/widgets#1") == layout
    assert await redis.load_layout("pr:acme/widgets#2") is None
    first = await redis.observe("m", 3_000, 1_000)  # 3.0 chars per token
    assert first.chars_per_token == 3.0 and (await redis.calibration("m")).samples == 1
    await client.aclose()
    files = FileStores(tmp_path)
    files.save_layout("local:repo:feature", layout)
    assert files.load_layout("local:repo:feature") == layout
    for _ in range(20):
        files.observe("m", 2_500, 1_000)
    assert abs(files.calibration("m").chars_per_token - 2.5) < 0.01
    assert files.calibration("other").chars_per_token == 4.0


def test_calibration_is_a_bounded_moving_average() -> None:
    c = Calibration()
    c = c.observe(3_600, 1_000)
    assert c.chars_per_token == 3.6  # the first sample counts fully
    c = c.observe(10_000_000, 1)  # a broken sample is clamped, not trusted
    assert c.chars_per_token < 8.0
    assert Calibration(4.0).observe_estimate(1_000, 1_250).chars_per_token == 3.2
    assert Calibration.from_json({"bad": 1}) == Calibration()
