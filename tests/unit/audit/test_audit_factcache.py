"""The audit's facts cache: a second plan of the same tree parses nothing, a changed file is parsed again, the same
bytes under two languages are kept apart, and a broken cache file costs a parse, never the audit."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from reviewbot.audit.factcache import FileFacts, Key, MemoryFacts, key_of, known_definitions
from reviewbot.audit.factstore import SqliteFacts
from reviewbot.audit.flowcontext import tree_source
from reviewbot.audit.planner import AuditPlan, parsed_definitions, plan_audit
from reviewbot.repos.index_store import SqliteIndex
from reviewbot.review.context.snapshot import MemorySnapshot
from reviewbot.review.context.symbols import Definition, Parsed
from tests.unit.audit.test_audit_plan import QUERIES, repo


class Counting:
    """The planner's parser, counting which files it had to parse."""

    def __init__(self) -> None:
        self.parsed: list[str] = []

    def __call__(self, path: str, text: str) -> Sequence[Definition] | Parsed:
        self.parsed.append(path)
        return parsed_definitions(path, text)


def plan(files: dict[str, str], cache: SqliteFacts | MemoryFacts | None) -> tuple[list[str], AuditPlan]:
    parser = Counting()
    made = plan_audit(MemorySnapshot(files), chunk_tokens=120, definitions=parser, facts_cache=cache)
    return sorted(parser.parsed), made


def test_a_second_plan_of_the_same_tree_parses_nothing_and_plans_the_same(tmp_path: Path) -> None:
    files = repo()
    parsed, first = plan(files, SqliteFacts(tmp_path))
    assert "app/views.py" in parsed and len(parsed) == len(first.sizes)
    again, second = plan(files, SqliteFacts(tmp_path))  # another process: only the file on disk is shared
    assert again == []
    assert second == first == plan(files, None)[1]


def test_only_a_changed_file_is_parsed_again_and_its_new_names_link_it(tmp_path: Path) -> None:
    files = repo()
    plan(files, SqliteFacts(tmp_path))
    changed = {**files, "shop/store/queries.py": QUERIES.replace("find_orders", "search_orders")}
    parsed, made = plan(changed, SqliteFacts(tmp_path))
    assert parsed == ["shop/store/queries.py"]
    assert made.definitions["shop/store/queries.py"][0].name == "search_orders"
    assert "shop/store/queries.py" not in made.graph.callees("app/views.py")


def test_the_same_bytes_as_python_and_as_javascript_are_kept_apart(tmp_path: Path) -> None:
    text = "def load_user(name):\n    return name\n\nfunction loadUser(name) { return name; }\n"
    plan({"a/users.py": text}, SqliteFacts(tmp_path))
    parsed, made = plan({"a/users.py": text, "b/users.js": text}, SqliteFacts(tmp_path))
    assert parsed == ["b/users.js"]  # the .py parse says nothing about what the same bytes define as .js
    assert key_of("a/users.py", text)[0] == key_of("b/users.js", text)[0]
    py = {d.name for d in made.definitions["a/users.py"]}
    js = {d.name for d in made.definitions["b/users.js"]}
    assert "load_user" in py and "loadUser" in js and py != js


def test_a_corrupt_cache_file_is_ignored_and_replaced_not_fatal(tmp_path: Path) -> None:
    files = repo()
    cache = SqliteFacts(tmp_path)
    plan(files, cache)
    broken = cache.path
    del cache
    broken.write_bytes(b"this is not a database" * 200)
    for side in ("-wal", "-shm"):
        Path(f"{broken}{side}").unlink(missing_ok=True)
    parsed, made = plan(files, SqliteFacts(tmp_path))
    assert len(parsed) == len(made.sizes) and made == plan(files, None)[1]
    assert plan(files, SqliteFacts(tmp_path))[0] == []  # a new file took its place


def test_a_damaged_entry_is_a_miss_and_its_file_is_parsed_again(tmp_path: Path) -> None:
    files = repo()
    cache = SqliteFacts(tmp_path)
    plan(files, cache)
    blob, language = key_of("app/views.py", files["app/views.py"])
    with sqlite3.connect(cache.path) as db:
        db.execute("UPDATE facts2 SET defs = '[[\"half a row\"' WHERE blob = ? AND language = ?", (blob, language))
    parsed, made = plan(files, SqliteFacts(tmp_path))
    assert parsed == ["app/views.py"] and made == plan(files, None)[1]


def test_an_unwritable_cache_plans_as_without_one(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache's folder should be")
    parsed, made = plan(repo(), SqliteFacts(blocked))
    assert len(parsed) == len(made.sizes) and made == plan(repo(), None)[1]


def test_least_recently_used_entries_go_first_when_the_cache_is_full(tmp_path: Path) -> None:
    now = [1_000_000.0]
    cache = SqliteFacts(tmp_path, max_entries=10, clock=lambda: now[0])
    facts = FileFacts((), frozenset({"name"}))
    cache.put({(f"{n:040x}", "python"): facts for n in range(10)})
    now[0] += 7_200
    assert len(cache.get([(f"{n:040x}", "python") for n in range(5)])) == 5  # used again: younger
    now[0] += 7_200
    cache.put({(f"{n:040x}", "python"): facts for n in range(10, 12)})
    kept = cache.get([(f"{n:040x}", "python") for n in range(12)])
    assert cache.count() <= 10
    assert {int(blob, 16) for blob, _ in kept} >= {0, 1, 2, 3, 4, 10, 11}


def test_the_cache_file_is_private(tmp_path: Path) -> None:
    cache = SqliteFacts(tmp_path / "facts")
    cache.put({key_of("a.py", "x = 1\n"): FileFacts((), frozenset({"x"}))})
    assert (tmp_path / "facts").stat().st_mode & 0o777 == 0o700
    assert cache.path.stat().st_mode & 0o777 == 0o600
    assert sqlite3.connect(cache.path).execute("SELECT names FROM facts2").fetchone() == ("x",)


def test_a_tree_of_more_files_than_one_query_holds_is_found_whole(tmp_path: Path) -> None:
    entries = {(f"{n:040x}", "python"): FileFacts((), frozenset({f"name_{n}"})) for n in range(1_200)}
    SqliteFacts(tmp_path).put(entries)
    assert SqliteFacts(tmp_path).get(sorted(entries)) == entries


def test_the_verifiers_index_reads_the_plans_definitions_alone_and_a_damaged_one_is_a_miss(tmp_path: Path) -> None:
    files = repo()
    plan(files, SqliteFacts(tmp_path))
    known = known_definitions(SqliteFacts(tmp_path))
    asked = [(path, key_of(path, text)[0]) for path, text in sorted(files.items())]
    expected = {path: tuple(d) for path, text in files.items() if (d := parsed_definitions(path, text).definitions)}
    assert known(asked) == expected and expected
    blob, language = key_of("app/views.py", files["app/views.py"])
    with sqlite3.connect(SqliteFacts(tmp_path).path) as db:
        db.execute("UPDATE facts2 SET defs = '[[\"half a row\"' WHERE blob = ? AND language = ?", (blob, language))
    assert known(asked) == {p: d for p, d in expected.items() if p != "app/views.py"}


class NamesAsked(MemoryFacts):
    """The plan's facts, counting the identifiers the verifier's index took from them instead of tokenising."""

    given = 0

    def get_names(self, keys: Sequence[Key]) -> dict[Key, str]:
        found = super().get_names(keys)
        self.given += len(found)
        return found


def test_the_verifiers_index_takes_the_plans_identifiers_and_finds_the_same_definitions(tmp_path: Path) -> None:
    files = repo()
    facts = NamesAsked()
    audited = plan(files, facts)[1].sizes
    with_facts = tree_source(MemorySnapshot(files), lambda _: [], SqliteIndex(tmp_path / "a"), facts)
    tokenised = tree_source(MemorySnapshot(files), lambda _: [], SqliteIndex(tmp_path / "b"))
    for name in ("find_orders", "run_sql", "order_list", "check_password", "helper_3"):
        assert with_facts.locate(name, "app/views.py") == tokenised.locate(name, "app/views.py") != []
    assert facts.given == len(audited) < len(files)  # each audited file's names from the plan; the rest tokenised
