"""Materialising cases on a small release made here: patches applied together, lines checked, conflicts refused."""

from __future__ import annotations

import io
import re
import tarfile
from pathlib import Path

import pytest
import yaml

from bench.planted.apply import PatchFailed, main, materialise
from bench.planted.cases import Case, load_corpus

VIEWS = "def show(request):\n    name = request.GET.get('name')\n    return name\n"
STORE = "import sqlite3\n\n\ndef connect():\n    return sqlite3.connect(':memory:')\n"
PATCH_VIEWS = """\
--- a/demo/web/views.py
+++ b/demo/web/views.py
@@ -1,3 +1,6 @@
+from demo.db.store import lookup
+
+
 def show(request):
     name = request.GET.get('name')
-    return name
+    return lookup(name)
"""
PATCH_STORE = "\n".join([
    "--- a/demo/db/store.py",
    "+++ b/demo/db/store.py",
    "@@ -3,3 +3,7 @@ import sqlite3",
    " ",  # the blank context line: a unified diff keeps its leading space
    " def connect():",
    "     return sqlite3.connect(':memory:')",
    "+",
    "+",
    "+def lookup(name):",
    """+    return connect().execute(f"SELECT * FROM t WHERE name = '{name}'")""",
    "",
])


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """A benchmark cache holding one sdist, demo 1.0, as pip download leaves it."""
    (tmp_path / "sdists").mkdir()
    with tarfile.open(tmp_path / "sdists" / "demo-1.0.tar.gz", "w:gz") as tar:
        for name, text in {"demo/web/views.py": VIEWS, "demo/db/store.py": STORE}.items():
            data = text.encode()
            member = tarfile.TarInfo(f"demo-1.0/{name}")
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    return tmp_path


def corpus(tmp_path: Path, patches: dict[str, str], sink_line: int = 9) -> list[Case]:
    folder = tmp_path / "corpus"
    folder.mkdir()
    cases = []
    for case_id, patch in patches.items():
        (folder / f"{case_id}.diff").write_text(patch)
        cases.append({
            "id": case_id, "package": "demo", "version": "1.0", "audited": "demo", "language": "python",
            "cwe": "CWE-89", "title": "t", "flow": "f", "patch": f"{case_id}.diff",
            "source": {"path": "demo/web/views.py", "line": 5, "text": "name = request.GET.get('name')"},
            "sink": {"path": "demo/db/store.py", "line": sink_line,
                     "text": """return connect().execute(f"SELECT * FROM t WHERE name = '{name}'")"""}})
    (folder / "corpus.yaml").write_text(yaml.safe_dump({"cases": cases}))
    return load_corpus(folder / "corpus.yaml")


def test_all_patches_of_a_release_go_into_one_tree_with_each_line_where_stated(tmp_path: Path, cache: Path) -> None:
    cases = corpus(tmp_path, {"views": PATCH_VIEWS, "store": PATCH_STORE})
    origin, problems = materialise(cases, tmp_path / "tree", cache)
    assert problems == [] and origin.endswith("demo-1.0.tar.gz")
    assert "return lookup(name)" in (tmp_path / "tree" / "demo/web/views.py").read_text()
    assert "def lookup(name):" in (tmp_path / "tree" / "demo/db/store.py").read_text()


def test_a_line_stated_at_the_wrong_place_is_reported(tmp_path: Path, cache: Path) -> None:
    cases = corpus(tmp_path, {"views": PATCH_VIEWS, "store": PATCH_STORE}, sink_line=6)
    _, problems = materialise(cases, tmp_path / "tree", cache)
    assert len(problems) == 2 and all("sink demo/db/store.py" in problem for problem in problems)


def test_two_cases_patching_one_file_are_refused_before_anything_is_copied(tmp_path: Path, cache: Path) -> None:
    cases = corpus(tmp_path, {"first": PATCH_STORE, "second": PATCH_STORE})
    with pytest.raises(PatchFailed, match=re.escape("second and first both patch demo/db/store.py")):
        materialise(cases, tmp_path / "tree", cache)
    assert not (tmp_path / "tree").exists()


def test_a_patch_that_does_not_apply_names_its_case(tmp_path: Path, cache: Path) -> None:
    broken = PATCH_VIEWS.replace("    return name\n", "    return name.upper()\n")
    with pytest.raises(PatchFailed, match=r"^views: "):
        materialise(corpus(tmp_path, {"views": broken}), tmp_path / "tree", cache)


def test_the_command_builds_one_tree_per_release_and_fails_on_a_misplaced_line(
        tmp_path: Path, cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus(tmp_path, {"views": PATCH_VIEWS, "store": PATCH_STORE})
    assert main(["--corpus", str(tmp_path / "corpus" / "corpus.yaml"), "--cache", str(cache),
                 "--dest", str(tmp_path / "out")]) == 0
    assert f"{tmp_path / 'out' / 'demo-1.0'}: 2 cases on " in capsys.readouterr().out
    (tmp_path / "corpus" / "corpus.yaml").write_text(
        (tmp_path / "corpus" / "corpus.yaml").read_text().replace("line: 9", "line: 8"))
    assert main(["--corpus", str(tmp_path / "corpus" / "corpus.yaml"), "--cache", str(cache),
                 "--dest", str(tmp_path / "again")]) == 1
    assert "MISPLACED views sink demo/db/store.py:8" in capsys.readouterr().out
