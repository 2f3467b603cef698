"""A tree on disk read as the audit reads it thousands of times: whole files, nothing that is not a regular text."""

from __future__ import annotations

import os
from pathlib import Path

from reviewbot.repos.dirsnapshot import DirSnapshot


def test_files_are_read_whole_and_only_regular_text_files_are_read(tmp_path: Path) -> None:
    big = "".join(f"line {n} é\n" for n in range(40_000))  # several of os.read's chunks
    (tmp_path / "big.py").write_text(big, encoding="utf-8")
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "bad.py").write_bytes(b"ok \xff end")
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "link.py").symlink_to(tmp_path / "big.py")
    tree = DirSnapshot(tmp_path)
    assert tree.read("big.py") == big
    assert tree.read("empty.py") == ""
    assert tree.read("bad.py") == "ok \ufffd end"
    assert [tree.read(p) for p in ("blob.bin", "pipe", "link.py", "../x", "missing.py")] == [None] * 5
