"""Whatever names a git tree holds, extraction, the listing and the index keep the rest: a name is kept or skipped."""

from __future__ import annotations

import io
import json
import tarfile
import tempfile
import unicodedata
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewbot.repos.cache import RepoCache
from reviewbot.repos.dirsnapshot import DirSnapshot
from reviewbot.repos.index_store import SqliteIndex
from reviewbot.repos.safetar import NAME_TOO_LONG, NOT_UTF8, extract
from reviewbot.review.context.index import RepoIndex

LATIN1 = b"caf\xe9.py".decode("utf-8", "surrogateescape")  # how tarfile reads a Latin-1 name from a git tree
LONG_CJK = "漢" * 93 + ".py"  # 93 characters, 282 bytes in UTF-8: more than a file system's 255


def tarball(files: dict[str, bytes]) -> bytes:
    """Shaped like GitHub's: pax, one top folder; names with surrogate escapes are written as their raw bytes."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT, encoding="utf-8",
                      errors="surrogateescape") as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(f"o-r-abc1234/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def cached(root: Path, files: dict[str, bytes]) -> Path:
    """The files through the repository cache, as a review or an audit gets them."""
    return RepoCache(root).checkout_sync("o/r", "abc1234", lambda archive: archive.write_bytes(tarball(files)))


def test_a_file_name_that_is_not_utf8_is_left_out_with_a_note_and_the_rest_is_listed(tmp_path: Path) -> None:
    tree = cached(tmp_path, {LATIN1: b"x = 1\n", "app/ok.py": b"def ok():\n    return 1\n"})
    snapshot = DirSnapshot(tree)
    assert list(snapshot.paths()) == ["app/ok.py"] and set(snapshot.blob_ids()) == {"app/ok.py"}
    assert snapshot.notes() == (f"1 file(s) left out of the repository's tree: {NOT_UTF8}",)
    assert list(DirSnapshot(tree).paths()) == ["app/ok.py"]  # read back from the listing


def test_a_name_too_long_for_the_file_system_costs_that_file_only(tmp_path: Path) -> None:
    archive = tmp_path / "a.tar.gz"
    archive.write_bytes(tarball({LONG_CJK: b"x = 1\n", f"{LONG_CJK[:-3]}/a.py": b"", "ok.py": b"y = 2\n"}))
    stats = extract(archive, tmp_path / "tree")
    assert stats.files == 1 and stats.skipped == {NAME_TOO_LONG: 2}
    assert (tmp_path / "tree" / "ok.py").read_bytes() == b"y = 2\n"


def test_a_name_holding_a_carriage_return_reads_back_from_the_listing(tmp_path: Path) -> None:
    tree = cached(tmp_path, {"a\rb.py": b"x = 1\n", "c.py": b"y = 2\n"})
    first = DirSnapshot(tree).blob_ids()
    again = DirSnapshot(tree)
    assert list(again.paths()) == ["a\rb.py", "c.py"] and again.blob_ids() == first


_SEGMENTS = st.one_of(
    st.text(st.characters(blacklist_characters="/\0", blacklist_categories=("Cs",)), min_size=1, max_size=12),
    st.binary(min_size=1, max_size=12).filter(lambda b: b"/" not in b and b"\0" not in b)
    .map(lambda b: b.decode("utf-8", "surrogateescape")),  # any bytes: git stores names as bytes
    st.integers(80, 130).map(lambda n: "漢" * n),  # long in bytes, short in characters
    st.sampled_from(["CON", "aux.c", "nul", "COM1.txt", "PRN", "lpt9", "README.md", "readme.md", "ReadMe.MD",
                     unicodedata.normalize("NFC", "café.py"), unicodedata.normalize("NFD", "café.py"),
                     "tab\there", "new\nline", "bell\x07", "\x1b[31m", "trailing. ", "back\\slash", "..", "."]),
)
_PATHS = st.lists(st.lists(_SEGMENTS, min_size=1, max_size=3).map("/".join), min_size=1, max_size=8, unique=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PATHS)
def test_every_member_name_is_extracted_listed_and_indexed_or_skipped_with_a_reason(paths: list[str]) -> None:
    files = {path: f"def f{i}():\n    return {i}\n".encode() for i, path in enumerate(paths)}
    with tempfile.TemporaryDirectory() as folder:
        tree = cached(Path(folder) / "repos", {**files, "keep/ok.py": b"def ok():\n    return 0\n"})
        snapshot = DirSnapshot(tree)
        listed = list(snapshot.paths())
        assert "keep/ok.py" in listed  # nothing a name does stops the rest of the tree
        meta = RepoCache(Path(folder) / "repos").entry("o/r", "abc1234") / "meta.json"
        skipped = sum(json.loads(meta.read_text())["skipped"].values())
        assert len(listed) + skipped == len(files) + 1  # each member kept or counted with its reason
        for path in listed:
            path.encode("utf-8")  # every listed name is text: it reaches prompts, JSON and SQLite
            assert snapshot.read(path) is not None
        assert DirSnapshot(tree).paths() == listed and DirSnapshot(tree).blob_ids() == snapshot.blob_ids()
        index = RepoIndex(DirSnapshot(tree), lambda p: False, SqliteIndex(Path(folder) / "index"))
        assert "keep/ok.py" in index.files_with("ok")
        for path in listed:
            index.parsed(path)
