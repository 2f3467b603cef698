"""Diff input the engine survives: renames, copies, modes, binaries, markers, CRLF, odd bytes, huge and broken."""

from __future__ import annotations

import pytest

from reviewbot.errors import DiffError
from reviewbot.review.diff.parse import parse_diff, render_numbered
from tests.context_helpers import diff_text, plan_for, prompt_text
from tests.fakes.diffs import git_diff

RENAME_COPY_MODE = """diff --git a/old/name.py b/new/name.py
similarity index 100%
rename from old/name.py
rename to new/name.py
diff --git a/lib/a.py b/lib/b.py
similarity index 90%
copy from lib/a.py
copy to lib/b.py
index 1111111..2222222 100644
--- a/lib/a.py
+++ b/lib/b.py
@@ -1,2 +1,2 @@
 def a():
-    return 1
+    return 2
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
diff --git "a/docs/caf\\303\\251 menu.md" "b/docs/caf\\303\\251 menu.md"
index 3333333..4444444 100644
--- "a/docs/caf\\303\\251 menu.md"
+++ "b/docs/caf\\303\\251 menu.md"
@@ -1 +1 @@
-old
\\ No newline at end of file
+new
\\ No newline at end of file
diff --git a/gone.py b/gone.py
deleted file mode 100644
index 5555555..0000000
--- a/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-def gone():
-    pass
diff --git a/blob.bin b/blob.bin
index 6666666..7777777 100644
Binary files a/blob.bin and b/blob.bin differ
"""


def test_renames_copies_mode_changes_quoted_paths_deletions_and_binaries() -> None:
    diff = parse_diff(RENAME_COPY_MODE)
    files = {f.path: f for f in diff.files}
    assert (files["new/name.py"].status, files["new/name.py"].old_path, files["new/name.py"].hunks) == (
        "renamed", "old/name.py", ())
    assert (files["lib/b.py"].status, files["lib/b.py"].old_path) == ("copied", "lib/a.py")
    assert files["lib/b.py"].commentable("RIGHT") == {1, 2}
    assert (files["run.sh"].old_mode, files["run.sh"].new_mode, files["run.sh"].status) == ("100644", "100755",
                                                                                          "modified")
    cafe = files["docs/café menu.md"]
    assert [(ln.kind, ln.text) for ln in cafe.hunks[0].lines] == [("-", "old"), ("+", "new")]  # no marker lines
    assert files["gone.py"].status == "removed" and files["gone.py"].commentable("LEFT") == {1, 2}
    assert files["blob.bin"].binary and diff.problems == ()
    assert "(copied from lib/a.py)" in render_numbered(files["lib/b.py"])
    assert "(mode 100644 -> 100755)" in render_numbered(files["run.sh"])


def test_crlf_and_non_utf8_bytes_do_not_break_parsing() -> None:
    raw = (b"diff --git a/w.txt b/w.txt\r\nindex 1..2 100644\r\n--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,2 +1,2 @@\r\n"
           b" keep\r\n-caf") + b"\xe9 latin-1\r\n+caf\xc3\xa9 utf-8\r\n"
    [file] = parse_diff(raw).files
    assert [ln.text for ln in file.hunks[0].lines] == ["keep", "caf\ufffd latin-1", "café utf-8"]


def test_a_truncated_file_is_skipped_and_named_while_the_rest_is_reviewed() -> None:
    base = {"a.py": "def a():\n    return 1\n", "b.py": "def b():\n    return 1\n"}
    head = {"a.py": "def a():\n    return 2\n", "b.py": "def b():\n    return 2\n"}
    text = git_diff(base, head)
    truncated = text[: text.rindex("+    return 2")]  # the second file's hunk is cut short
    plan = plan_for(base, head, diff_text=truncated)
    assert plan.coverage.reviewed == ("a.py",)
    [(path, reason)] = plan.coverage.skipped
    assert path == "b.py" and reason.startswith("could not parse its diff")
    assert "- b.py: could not parse its diff" in prompt_text(plan)


def test_a_diff_with_nothing_readable_is_a_clear_error() -> None:
    with pytest.raises(DiffError, match="could not parse the diff"):
        parse_diff("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n line\n")


def test_thousands_of_hunks_in_one_file() -> None:
    base = {"big.py": "".join(f"value_{i} = {i}\n" for i in range(30_000))}
    head = {"big.py": "".join(f"value_{i} = {i}\n" if i % 10 else f"changed_{i} = {i}\n" for i in range(30_000))}
    text = "diff --git a/big.py b/big.py\nindex 1..2 100644\n--- a/big.py\n+++ b/big.py\n" + "".join(
        f"@@ -{i + 1} +{i + 1} @@\n-value_{i} = {i}\n+changed_{i} = {i}\n" for i in range(0, 30_000, 10))
    plan = plan_for(base, head, diff_text=text)
    [file] = parse_diff(text).files
    assert len(file.hunks) == 3_000
    assert plan.prompt.tokens <= 100_000
    assert "changed_0 = 0" in diff_text(plan)  # reviewed, in full or in part, within the budget
    assert plan.coverage.reviewed == ("big.py",) or plan.coverage.partial[0][0] == "big.py"
