"""Diff parsing and the commentable-line sets GitHub's review API accepts."""

from pathlib import Path

import pytest

from reviewbot.errors import DiffError
from reviewbot.review.diff.parse import parse_diff, render_numbered

MIXED = (Path(__file__).parents[2] / "fixtures" / "diffs" / "mixed.diff").read_text()


def test_statuses_paths_and_binary_files() -> None:
    diff = parse_diff(MIXED)
    by_path = {f.path: f for f in diff.files}
    assert by_path["app/calc.py"].status == "modified"
    assert by_path["docs/new.md"].status == "renamed" and by_path["docs/new.md"].old_path == "docs/old.md"
    assert by_path["app/new.py"].status == "added" and by_path["app/new.py"].old_path is None
    assert by_path["app/gone.py"].status == "removed"
    assert by_path["img/logo.png"].binary and by_path["img/logo.png"].hunks == ()


def test_right_side_is_added_and_context_lines_left_side_is_removed_and_context() -> None:
    calc = parse_diff(MIXED).file("app/calc.py")
    assert calc is not None
    # first hunk: new lines 1-9, second hunk: new lines 23-26
    assert calc.commentable("RIGHT") == frozenset(range(1, 10)) | frozenset(range(23, 27))
    # old side: 1-6 and 20-23 (context and removed lines)
    assert calc.commentable("LEFT") == frozenset(range(1, 7)) | frozenset(range(20, 24))
    assert calc.hunk_index("RIGHT", 3) == 0 and calc.hunk_index("RIGHT", 25) == 1
    assert calc.hunk_index("RIGHT", 15) is None


def test_deleted_file_only_has_left_lines_and_the_no_newline_marker_is_not_a_line() -> None:
    gone = parse_diff(MIXED).file("app/gone.py")
    assert gone is not None
    assert gone.commentable("RIGHT") == frozenset()
    assert gone.commentable("LEFT") == {1, 2}


def test_crlf_diffs_parse_like_lf() -> None:
    crlf = parse_diff(MIXED.replace("\n", "\r\n")).file("app/calc.py")
    lf = parse_diff(MIXED).file("app/calc.py")
    assert crlf is not None and lf is not None
    assert crlf.commentable("RIGHT") == lf.commentable("RIGHT")
    assert all("\r" not in line.text for hunk in crlf.hunks for line in hunk.lines)


def test_numbered_rendering_names_old_and_new_lines() -> None:
    calc = parse_diff(MIXED).file("app/calc.py")
    assert calc is not None
    rows = [line.split(maxsplit=3) for line in render_numbered(calc).splitlines()]
    assert ["2", "-", "return", "sum(i.price for i in items)"] in rows  # removed: old number only
    assert ["2", "+", "result", "= 0"] in rows  # added: new number only
    assert ["1", "1", "def", "total(items):"] in rows  # context: both numbers


def test_truncated_hunk_is_a_clear_error() -> None:
    broken = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n line\n"
    with pytest.raises(DiffError, match="could not parse the diff"):
        parse_diff(broken)


def test_empty_diff_has_no_files() -> None:
    assert parse_diff("").files == ()
