"""The context index outlives a review: a second review parses only new contents and picks the same context."""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
from pathlib import Path

from reviewbot.repos.dirsnapshot import LISTING, DirSnapshot
from reviewbot.repos.index_store import SqliteIndex
from reviewbot.review.context.index import RepoIndex
from reviewbot.review.context.store import INDEX_FORMAT, git_blob_id
from tests.context_helpers import context_text, plan_for

CALC = "def total(items):\n    return sum(i.price for i in items)\n"
REPORT = "from app.calc import total\n\n\ndef monthly(orders):\n    return total(orders)\n"
BILLING = "from app.calc import total\n\n\ndef bill(orders):\n    return total(orders) * 2\n"


def _tree(root: Path, files: dict[str, str]) -> DirSnapshot:
    tree = root / "tree"  # laid out as a repository-cache entry, so the blob listing is kept beside it
    for path, text in files.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)
    return DirSnapshot(tree)


def test_blob_ids_are_gits_and_the_listing_is_written_once(tmp_path: Path) -> None:
    snapshot = _tree(tmp_path / "a", {"app/calc.py": CALC})
    assert snapshot.blob_ids() == {"app/calc.py": git_blob_id(CALC.encode())}
    assert git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"  # `git hash-object`
    assert (tmp_path / "a" / LISTING).exists()
    again = DirSnapshot(tmp_path / "a" / "tree")
    assert list(again.paths()) == ["app/calc.py"] and again.blob_ids() == snapshot.blob_ids()


def test_a_second_review_parses_only_the_contents_it_has_not_seen(tmp_path: Path) -> None:
    store = SqliteIndex(tmp_path / "index")
    files = {"app/calc.py": CALC, "app/report.py": REPORT, "app/billing.py": BILLING}
    first = RepoIndex(_tree(tmp_path / "one", files), lambda p: False, store)
    assert first.files_with("total") == ["app/billing.py", "app/calc.py", "app/report.py"]
    assert [p for p, _ in first.definitions_of("total", "app/report.py")] == ["app/calc.py"]
    assert first.parses == 1

    # The next commit changes one caller: names come from the store, only the new content is read.
    changed = {**files, "app/billing.py": "def bill(orders):\n    return sum(orders)\n"}
    second = RepoIndex(_tree(tmp_path / "two", changed), lambda p: False, store)
    assert second.files_with("total") == ["app/calc.py", "app/report.py"]  # billing no longer calls it
    assert second.files_with("sum") == ["app/billing.py", "app/calc.py"]  # its new content's names are found
    assert [p for p, _ in second.definitions_of("total", "app/report.py")] == ["app/calc.py"]
    assert second.parses == 0  # calc.py's definitions were kept from the first review


def test_the_plan_is_the_same_with_and_without_the_index(tmp_path: Path) -> None:
    base = {"app/calc.py": CALC, "app/report.py": REPORT, "app/other.py": "def other():\n    return 1\n"}
    head = {**base, "app/calc.py": CALC.replace("(items)", "(items, tax_rate)")}
    plain = plan_for(base, head)
    store = SqliteIndex(tmp_path / "index")
    for _ in range(2):  # cold, then warm from the store
        indexed = plan_for(base, head, index=store)
        assert context_text(indexed) == context_text(plain)
        assert indexed.coverage.context == plain.coverage.context
    assert "return total(orders)" in context_text(plain)


def test_a_store_of_another_format_is_rebuilt_and_size_is_bounded(tmp_path: Path) -> None:
    root = tmp_path / "index"
    root.mkdir()
    (root / f"index-v{INDEX_FORMAT - 1}.sqlite").write_bytes(b"an older layout")
    now = [1_000_000.0]
    store = SqliteIndex(root, max_blobs=50, clock=lambda: now[0])
    assert not (root / f"index-v{INDEX_FORMAT - 1}.sqlite").exists()
    for review in range(12):  # each review indexes ten new contents, an hour and more after the one before
        now[0] += 3_601
        store.add_names([(f"{review * 10 + i:040x}", {"name", f"n{review * 10 + i}"}) for i in range(10)])
    assert store.count() <= 50
    assert store.blobs_with("n119") == [f"{119:040x}"] and store.blobs_with("n0") == []  # the oldest went first
    assert store.known([f"{0:040x}", f"{119:040x}"]) == {f"{119:040x}"}  # an evicted content is indexed anew


def test_concurrent_workers_share_one_store(tmp_path: Path) -> None:
    errors: list[BaseException] = []

    def worker(offset: int) -> None:
        try:
            store = SqliteIndex(tmp_path / "index")  # each worker process opens its own
            for batch in range(10):
                store.add_names([(f"{offset + batch * 10 + i:040x}", {"shared", f"w{offset}"}) for i in range(10)])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n * 1_000,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    reader = SqliteIndex(tmp_path / "index")
    everything = [f"{n * 1_000 + i:040x}" for n in range(4) for i in range(100)]
    assert reader.known(everything) == set(everything)  # a review asks about its tree's blobs first
    assert len(reader.blobs_with("shared")) == 400


def test_a_store_that_cannot_be_written_does_not_stop_the_review(tmp_path: Path) -> None:
    store = SqliteIndex(tmp_path / "index", timeout=0.1)
    store.known([])  # creates the file
    holder = sqlite3.connect(store.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another worker holds the write lock for longer than we wait
    try:
        files = {"app/calc.py": CALC, "app/report.py": REPORT}
        index = RepoIndex(_tree(tmp_path / "one", files), lambda p: False, store)
        assert index.files_with("total") == ["app/calc.py", "app/report.py"]  # answered from memory
        assert [p for p, _ in index.definitions_of("total", "app/report.py")] == ["app/calc.py"]
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_the_same_bytes_as_python_and_as_javascript_are_parsed_as_each(tmp_path: Path) -> None:
    store = SqliteIndex(tmp_path / "index")
    helper = "def helper(x):\n    return x\n"
    python = RepoIndex(_tree(tmp_path / "one", {"lib/util.py": helper}), lambda p: False, store)
    assert [p for p, _ in python.definitions_of("helper", "lib/main.py")] == ["lib/util.py"]
    # The same blob under a `.js` name: JavaScript has no `def`, so nothing is defined there (it was once
    # answered with the Python parse the first review stored for those bytes).
    script = RepoIndex(_tree(tmp_path / "two", {"web/util.js": helper}), lambda p: False, store)
    assert script.definitions_of("helper", "web/main.js") == []
    assert script.parses == 1
    again = RepoIndex(_tree(tmp_path / "three", {"lib/util.py": helper}), lambda p: False, store)
    assert [p for p, _ in again.definitions_of("helper", "lib/main.py")] == ["lib/util.py"]
    assert again.parses == 0  # each language's parse is kept


def test_another_workers_eviction_leaves_a_running_reviews_batch(tmp_path: Path) -> None:
    now = [1_000_000.0]
    first = SqliteIndex(tmp_path / "index", max_blobs=50, clock=lambda: now[0])
    second = SqliteIndex(tmp_path / "index", max_blobs=50, clock=lambda: now[0])
    first.add_names([(f"{i:040x}", {"mine"}) for i in range(30)])  # a review in one worker indexes its tree ...
    second.add_names([(f"{100 + i:040x}", {"theirs"}) for i in range(30)])  # ... another worker passes the bound
    assert len(first.blobs_with("mine")) == 30  # the running review still finds its own postings
    assert len(second.blobs_with("theirs")) == 30
    assert first.count() == 60  # over the bound for a while: both batches are in use
    now[0] += 2 * 3_600  # both reviews are long over; the next write evicts what nobody used since
    third = SqliteIndex(tmp_path / "index", max_blobs=50, clock=lambda: now[0])
    third.add_names([(f"{200 + i:040x}", {"later"}) for i in range(10)])
    assert third.count() <= 50 and len(third.blobs_with("later")) == 10
    assert third.known([f"{i:040x}" for i in range(30)]) == set()  # the least recently used batch went


def _review_files(index: RepoIndex) -> tuple[list[str], list[str]]:
    return index.files_with("total"), [p for p, _ in index.definitions_of("total", "app/report.py")]


def test_a_corrupt_or_truncated_index_is_rebuilt_and_never_stops_a_review(tmp_path: Path) -> None:
    files = {"app/calc.py": CALC, "app/report.py": REPORT, "app/billing.py": BILLING}
    expected = (["app/billing.py", "app/calc.py", "app/report.py"], ["app/calc.py"])
    garbage = SqliteIndex(tmp_path / "garbage")
    garbage.path.write_bytes(b"\x00not a database, the disk filled up\n" * 300)  # "file is not a database"
    index = RepoIndex(_tree(tmp_path / "one", files), lambda p: False, SqliteIndex(tmp_path / "garbage"))
    assert _review_files(index) == expected
    again = RepoIndex(_tree(tmp_path / "two", files), lambda p: False, SqliteIndex(tmp_path / "garbage"))
    assert _review_files(again) == expected and again.parses == 0  # the new store serves the next review

    filled = SqliteIndex(tmp_path / "truncated")
    for n in range(3):  # enough pages that a cut file is missing some
        filled.add_names([(f"{n * 2_000 + i:040x}", {f"name{n * 2_000 + i}", "shared"}) for i in range(2_000)])
    checkpoint = sqlite3.connect(filled.path)
    checkpoint.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    checkpoint.close()
    size = filled.path.stat().st_size
    with filled.path.open("r+b") as data:  # a crash or a full disk cut the file short
        data.truncate(size // 3)
    del filled
    cut = RepoIndex(_tree(tmp_path / "three", files), lambda p: False, SqliteIndex(tmp_path / "truncated"))
    assert _review_files(cut) == expected
    later = RepoIndex(_tree(tmp_path / "four", files), lambda p: False, SqliteIndex(tmp_path / "truncated"))
    assert _review_files(later) == expected and later.parses == 0


def test_the_index_folder_and_files_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        store = SqliteIndex(tmp_path / "data" / "index")
        index = RepoIndex(_tree(tmp_path / "one", {"app/calc.py": CALC, "app/report.py": REPORT}),
                          lambda p: False, store)
        assert index.files_with("total") == ["app/calc.py", "app/report.py"]  # the connection is open: WAL, SHM
    finally:
        os.umask(old)
    folder = tmp_path / "data" / "index"
    made = {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()}
    assert {store.path.name, store.path.name + "-wal", store.path.name + "-shm"} <= set(made)
    assert made == dict.fromkeys(made, 0o600)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700


def test_an_unusable_index_folder_does_not_stop_the_review(tmp_path: Path) -> None:
    (tmp_path / "index").write_text("a file where the folder should be")  # or a read-only disk
    index = RepoIndex(_tree(tmp_path / "one", {"app/calc.py": CALC, "app/report.py": REPORT}), lambda p: False,
                      SqliteIndex(tmp_path / "index"))
    assert _review_files(index) == (["app/calc.py", "app/report.py"], ["app/calc.py"])  # answered from memory


def test_names_are_found_exactly_whatever_their_case_or_spelling(tmp_path: Path) -> None:
    """Names live in an FTS5 table, which folds case and has a query syntax: neither may leak into answers."""
    store = SqliteIndex(tmp_path / "index")
    upper, lower, words = "a" * 40, "b" * 40, "c" * 40
    store.add_names([(upper, {"Model", "QuerySet", "get_User"}), (lower, {"model", "queryset", "_"}),
                     (words, {"AND", "NOT", "NEAR", "OR", "x9"})])
    again = SqliteIndex(tmp_path / "index")  # another worker indexed the same content meanwhile
    again.add_names([(upper, {"Model", "QuerySet", "get_User"})])
    store.known([upper, lower, words])
    assert store.blobs_with("Model") == [upper] and store.blobs_with("model") == [lower]
    assert store.blobs_with("QuerySet") == [upper] and store.blobs_with("QUERYSET") == []
    assert store.blobs_with("get_User") == [upper] and store.blobs_with("get_user") == []
    assert store.blobs_with("_") == [lower] and store.blobs_with("AND") == [words] and store.blobs_with("x9") == [words]
    for odd in ("Mod*", 'Model"', "Model OR model", "get-User", "NEAR(model)", "", "9x", "módel"):
        assert store.blobs_with(odd) == [], odd
