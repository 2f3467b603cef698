"""Bounded decompression and private modes: a small archive cannot keep the worker busy, nor leak source code."""

from __future__ import annotations

import io
import stat
import struct
import tarfile
import time
import zlib
from pathlib import Path

import pytest

from reviewbot.repos.bounded import ArchiveBomb
from reviewbot.repos.cache import RepoCache
from reviewbot.repos.safetar import Limits, extract


def _bomb(path: Path, members: int = 2, size: int = 1 << 30) -> Path:
    """A valid .tar.gz of members of zeros, bigger than the per-file cap: the extractor skips them, but skipping
    still inflates them. Built from one deflated block repeated (a full flush makes blocks independent), so
    making 2 GB of tar takes a second, not the 13 s of compressing it."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)

    def segment(data: bytes) -> bytes:
        return deflate.compress(data) + deflate.flush(zlib.Z_FULL_FLUSH)

    block = bytes(1 << 20)
    zeros = segment(block)
    parts, crc, total = [b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03"], 0, 0
    for i in range(members):
        info = tarfile.TarInfo(f"top/zeros{i}.bin")
        info.size = size
        header = info.tobuf(format=tarfile.GNU_FORMAT)
        parts.append(segment(header))
        crc, total = zlib.crc32(header, crc), total + len(header)
        for _ in range(size // len(block)):
            parts.append(zeros)
            crc = zlib.crc32(block, crc)
        total += size
    end = bytes(1024)
    parts += [deflate.compress(end) + deflate.flush(), struct.pack("<II", zlib.crc32(end, crc),
                                                                    (total + len(end)) & 0xFFFFFFFF)]
    path.write_bytes(b"".join(parts))
    return path


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _bomb(tmp_path_factory.mktemp("bomb") / "bomb.tar.gz")


def test_the_bomb_is_a_valid_archive(bomb: Path) -> None:
    with tarfile.open(bomb, "r|gz") as tar:
        first = next(iter(tar))
        assert (first.name, first.size) == ("top/zeros0.bin", 1 << 30)


def test_a_decompression_bomb_stops_quickly_with_a_clear_error(bomb: Path, tmp_path: Path) -> None:
    assert bomb.stat().st_size < 2_500_000  # about 2 MB of gzip for 2 GB of tar
    started = time.monotonic()
    with pytest.raises(ArchiveBomb, match=r"inflates more than 200-fold.*MB compressed"):
        extract(bomb, tmp_path / "tree")
    elapsed = time.monotonic() - started
    assert elapsed < 3.0, elapsed  # measured: about 0.2 s (it used to run through all 2 GB, about 47 s)
    assert not (tmp_path / "tree").exists()


def test_the_absolute_output_cap_holds_whatever_the_ratio(tmp_path: Path) -> None:
    archive = tmp_path / "a.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for i in range(30):
            data = bytes(range(256)) * 400
            info = tarfile.TarInfo(f"top/f{i}.bin")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with pytest.raises(ArchiveBomb, match="decompresses to more than"):
        extract(archive, tmp_path / "t", Limits(max_stream_bytes=1_000_000))


@pytest.mark.parametrize("mode", ["w", "w:gz", "w:bz2", "w:xz"])
def test_every_archive_format_still_extracts(tmp_path: Path, mode: str) -> None:
    archive = tmp_path / "a.tar"
    with tarfile.open(archive, mode) as tar:  # type: ignore[call-overload]
        for i in range(50):
            data = f"def f{i}():\n    return {i}\n".encode() * 200
            info = tarfile.TarInfo(f"top/pkg/m{i}.py")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    stats = extract(archive, tmp_path / "tree")
    assert stats.files == 50 and not stats.truncated
    assert (tmp_path / "tree" / "pkg" / "m7.py").read_text().startswith("def f7():")


def test_cached_source_code_is_readable_by_this_user_only(tmp_path: Path) -> None:
    def write(dest: Path) -> None:
        with tarfile.open(dest, "w:gz") as tar:
            info = tarfile.TarInfo("top/deep/er/secret.py")
            info.size = 5
            tar.addfile(info, io.BytesIO(b"x = 1"))

    tree = RepoCache(tmp_path / "repos").checkout_sync("o/private", "a" * 40, write)
    modes = {str(p.relative_to(tmp_path)): stat.S_IMODE(p.stat().st_mode) for p in tmp_path.rglob("*")}
    assert modes and (tree / "deep" / "er" / "secret.py").exists()
    assert {m for p, m in modes.items() if (tmp_path / p).is_dir()} == {0o700}
    assert {m for p, m in modes.items() if (tmp_path / p).is_file()} == {0o600}
