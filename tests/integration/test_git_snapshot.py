"""The base commit read straight from git: paths, git's own blob ids, texts; and the index kept across reviews."""

from __future__ import annotations

import json
import os
from pathlib import Path

from reviewbot.repos.gitsnapshot import GitSnapshot
from reviewbot.review.context.store import git_blob_id
from tests.integration.test_cli_review import git, new_repo, run_cli


def test_a_commit_reads_like_a_tree_without_a_checkout(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "p")
    (root / "app").mkdir()
    (root / "app" / "calc.py").write_text("def total(x):\n    return x\n")
    (root / "logo.png").write_bytes(b"\x89PNG\0\0binary")
    os.symlink("app/calc.py", root / "link.py")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    (root / "app" / "calc.py").write_text("changed in the work tree, not committed\n")
    snapshot = GitSnapshot(root, "HEAD")
    assert list(snapshot.paths()) == ["app/calc.py", "link.py", "logo.png"]
    assert snapshot.read("app/calc.py") == "def total(x):\n    return x\n"  # the commit, not the work tree
    assert snapshot.blob_ids()["app/calc.py"] == git_blob_id(b"def total(x):\n    return x\n")
    assert snapshot.read("logo.png") is None and snapshot.read("link.py") is None  # binary; a symlink
    assert list(snapshot.read_many(["logo.png", "app/calc.py"])) == [("logo.png", None),
                                                                     ("app/calc.py", "def total(x):\n    return x\n")]
    snapshot.close()


def test_a_second_review_of_the_repository_reuses_the_index(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "p")
    (root / "app").mkdir()
    (root / "app" / "calc.py").write_text("def total(items):\n    return sum(items)\n")
    (root / "app" / "report.py").write_text("from app.calc import total\n\n\ndef show(o):\n    return total(o)\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "feature")
    (root / "app" / "calc.py").write_text("def total(items, tax):\n    return sum(items) * tax\n")
    git(root, "commit", "-qam", "tax")
    env = {"REVIEWBOT_DATA_DIR": str(tmp_path / "data")}
    args = ["review", "--repo", str(root), "--base", "main", "--dry-run", "--format", "json"]
    plans = [json.loads(run_cli(args, env, root).stdout) for _ in range(2)]
    assert plans[0]["coverage"]["context"] == plans[1]["coverage"]["context"]
    assert "app/report.py" in [c["path"] for c in plans[0]["coverage"]["context"]]
    assert list((tmp_path / "data" / "index").glob("index-v*.sqlite"))
    assert not (tmp_path / "data" / "repos").exists()  # nothing extracted: read from git's object store
