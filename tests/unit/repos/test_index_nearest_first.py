"""A review indexes a bounded number of new files, nearest to its change first; later reviews index the rest, and a
review with the index whole picks what a review without any store picks."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from reviewbot.repos.index_store import SqliteIndex
from reviewbot.review.context.identifiers import identifiers
from reviewbot.review.context.index import FILES_PER_REVIEW, IDENT, RepoIndex, nearest_first
from reviewbot.review.context.snapshot import MemorySnapshot
from tests.context_helpers import context_text, plan_for

CALC = "def total(items):\n    return sum(i.price for i in items)\n"
REPORT = "from app.calc import total\n\n\ndef monthly(orders):\n    return total(orders)\n"
FAR = "from app.calc import total\n\n\ndef yearly(orders):\n    return total(orders) * 12\n"
PARTIAL = re.compile(r"index does not cover (\d+) files")


def test_a_review_indexes_the_files_nearest_its_change_and_the_next_one_the_rest(tmp_path: Path) -> None:
    files = {"app/calc.py": CALC, "app/report.py": REPORT, "lib/util.py": "def helper():\n    return 1\n",
             "web/a/views.py": FAR, "web/b/views.py": FAR.replace("yearly", "weekly")}
    snapshot = MemorySnapshot(files)
    store = SqliteIndex(tmp_path / "index")
    first = RepoIndex(snapshot, lambda p: False, store, near=["app/calc.py"], per_review=3)
    # app/ first (the changed file's folder), then the rest in path order: lib/util.py; web/ waits.
    assert first.files_with("total") == ["app/calc.py", "app/report.py"]
    assert first.unindexed == 2

    second = RepoIndex(snapshot, lambda p: False, store, near=["app/calc.py"], per_review=3)
    assert second.files_with("total") == ["app/calc.py", "app/report.py", "web/a/views.py", "web/b/views.py"]
    assert second.unindexed == 0
    assert second.files_with("total") == RepoIndex(snapshot, lambda p: False).files_with("total")  # no store


def test_nearness_is_the_folders_shared_with_the_closest_changed_file() -> None:
    paths = ["a/b/c/x.py", "a/b/y.py", "a/z.py", "d/e.py", "a/b/c/d/w.py", "top.py"]
    assert nearest_first(paths, ["a/b/c/changed.py", "d/other.py"]) == [
        "a/b/c/d/w.py", "a/b/c/x.py", "a/b/y.py", "a/z.py", "d/e.py", "top.py"]
    assert nearest_first(paths, []) == sorted(paths)


def test_a_first_review_of_a_large_tree_says_so_and_the_whole_index_picks_what_no_store_picks(tmp_path: Path) -> None:
    base = {"app/calc.py": CALC, "app/report.py": REPORT, "zzz/far.py": FAR,
            **{f"pkg{i // 100}/m{i}.py": f"value_{i} = {i}\n" for i in range(FILES_PER_REVIEW + 100)}}
    head = {**base, "app/calc.py": CALC.replace("(items)", "(items, tax_rate)")}
    plain = plan_for(base, head)
    assert "return total(orders) * 12" in context_text(plain) and not plain.coverage.notes

    store = SqliteIndex(tmp_path / "index")
    first = plan_for(base, head, index=store)
    note = next(n for n in first.coverage.notes if PARTIAL.search(n))
    found = PARTIAL.search(note)
    assert found is not None and int(found.group(1)) == len(base) - FILES_PER_REVIEW
    assert "return total(orders)\n" in context_text(first)  # the caller beside the change is found
    assert "* 12" not in context_text(first)  # the far one waits for the next review

    for _ in range(2):  # the next review indexes the rest; the one after finds it all stored
        whole = plan_for(base, head, index=store)
        assert context_text(whole) == context_text(plain)
        assert whole.coverage.context == plain.coverage.context and whole.coverage.notes == plain.coverage.notes


def test_identifiers_are_the_names_the_regex_finds() -> None:
    texts = ["def f(x1, _y):\n    return 0x1F + 12 + 3abc", "naïve café_au_lait ünïcode x\u00e9y", "",
             "a\0b\x1bc", "__init__ 9 _9 9_ a9b", "émoji 😀x😀", "tabs\tand\r\nnewlines\x0bA_b", "lone \ud800 z"]
    for text in texts:
        assert identifiers(text) == set(IDENT.findall(text)), text


@given(st.text(alphabet=st.sampled_from("aZ_09 .\n\0é😀\ud800x") | st.characters(), max_size=60))
def test_identifiers_match_the_regex_on_any_text(text: str) -> None:
    assert identifiers(text) == set(IDENT.findall(text))
