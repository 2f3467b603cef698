"""Repository tools for the model: useful answers, never anything outside the repository, bounded sizes."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from reviewbot.inference.pathglob import compile_glob, glob_matches
from reviewbot.inference.tools import MAX_ANSWER_CHARS, TOOL_DEFINITIONS_JSON, RepoTools, tool_definitions
from reviewbot.review.context.options import ContextOptions
from tests.context_helpers import plan_for


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "app").mkdir(parents=True)
    (root / "app" / "calc.py").write_text("".join(f"line {i}\n" for i in range(1, 1001)) + "def total(items):\n")
    (root / "app" / "util.py").write_text("from app.calc import total\nTOTAL_LIMIT = 3\n")
    (root / "README.md").write_text("# demo\n")
    (tmp_path / "secret.txt").write_text("TOP-SECRET-OUTSIDE\n")
    os.symlink(tmp_path / "secret.txt", root / "app" / "link.txt")
    os.symlink(tmp_path, root / "escape")
    return root


def test_read_file_numbers_lines_and_pages_long_files(tree: Path) -> None:
    tools = RepoTools(tree)
    first = tools.run("read_file", {"path": "app/calc.py"})
    assert first.startswith("app/calc.py lines 1-400 of 1001:\n    1  line 1\n")
    assert "(lines 401-1001 not shown; ask for them)" in first
    page = tools.run("read_file", json.dumps({"path": "./app/calc.py", "start_line": 1000, "end_line": 1001}))
    assert page == "app/calc.py lines 1000-1001 of 1001:\n 1000  line 1000\n 1001  def total(items):"


def test_search_code_is_literal_and_bounded_and_list_files_shows_one_folder(tree: Path) -> None:
    tools = RepoTools(tree)
    assert tools.run("search_code", {"pattern": "def total("}) == "app/calc.py:1001: def total(items):"
    assert tools.run("search_code", {"pattern": "total", "path_glob": "app/*.py"}).splitlines() == [
        "app/calc.py:1001: def total(items):", "app/util.py:1: from app.calc import total"]  # case matters
    assert tools.run("search_code", {"pattern": "(a+)+$"}) == "no lines contain '(a+)+$'"  # not a regex
    many = tools.run("search_code", {"pattern": "line"})
    assert many.count("\n") == 50 and many.endswith("(stopped at 50 matches)")
    assert tools.run("search_code", {"pattern": "SECRET-OUTSIDE"}).startswith("no lines contain")  # no symlinks
    assert tools.run("list_files", {"directory": ""}).splitlines() == ["README.md", "app/", "escape"]
    assert tools.run("list_files", {"directory": "app"}).splitlines() == ["calc.py", "link.txt", "util.py"]


@pytest.mark.parametrize("args", [
    {"path": "../secret.txt"},
    {"path": "app/../../secret.txt"},
    {"path": "/etc/passwd"},
    {"path": str(Path("/etc/passwd"))},
    {"path": "app/link.txt"},  # a symbolic link to a file outside
    {"path": "escape/secret.txt"},  # through a symbolic link to a folder outside
    {"path": "C:/Windows/win.ini"},
    {"path": "app/calc.py\0.txt"},
    {"path": "~/.ssh/id_rsa"},
])
def test_a_tool_call_cannot_read_outside_the_repository(tree: Path, args: dict[str, str]) -> None:
    answer = RepoTools(tree).run("read_file", args)
    assert answer.startswith("error: ") and "TOP-SECRET" not in answer
    listing = RepoTools(tree).run("list_files", {"directory": args["path"].rsplit("/", 1)[0] or ".."})
    assert "secret.txt" not in listing


def test_bad_calls_get_an_explanation_not_an_exception(tree: Path) -> None:
    tools = RepoTools(tree)
    assert tools.run("delete_file", {"path": "x"}) == "error: unknown tool 'delete_file'"
    assert tools.run("read_file", "{not json") == "error: arguments are not valid JSON"
    assert tools.run("read_file", {"path": "app/calc.py", "start_line": 0}).startswith("error: `start_line`")
    assert tools.run("read_file", {"path": "missing.py"}).startswith("error: no file 'missing.py'")
    (tree / "big.txt").write_text("x" * 2_000_000)
    assert "over 1 MB" in tools.run("read_file", {"path": "big.txt"})
    (tree / "wide.txt").write_text(("y" * 1000 + "\n") * 300)
    assert len(tools.run("read_file", {"path": "wide.txt"})) <= MAX_ANSWER_CHARS + 30


def test_tool_definitions_are_the_same_bytes_every_time() -> None:
    first = json.dumps(tool_definitions(), sort_keys=True, separators=(",", ":"))
    assert first == TOOL_DEFINITIONS_JSON == json.dumps(tool_definitions(), sort_keys=True, separators=(",", ":"))
    assert [t["function"]["name"] for t in tool_definitions()] == ["read_file", "search_code", "list_files"]
    # With tools on, section 1 tells the model about them and counts the definitions sent beside it.
    on = plan_for({"a.py": "A = 1\n"}, {"a.py": "A = 2\n"}, options=ContextOptions(tools=True))
    off = plan_for({"a.py": "A = 1\n"}, {"a.py": "A = 2\n"}, options=ContextOptions(tools=False))
    system_on, system_off = on.prompt.sections[0], off.prompt.sections[0]
    assert "read_file, search_code and list_files" in system_on.text and "read_file" not in system_off.text
    assert system_on.tokens - system_off.tokens >= len(TOOL_DEFINITIONS_JSON) / 4


def test_every_argument_is_capped_and_a_hostile_glob_answers_at_once(tree: Path) -> None:
    deep = tree / ("a" * 200) / ("b" * 200)
    deep.mkdir(parents=True)
    for i in range(200):
        (deep / f"{'c' * 100}{i}.py").write_text("needle\n")
    tools = RepoTools(tree)
    started = time.monotonic()
    # Stars between literals made pathspec's regular expression backtrack: seconds per file for 43 characters.
    answer = tools.run("search_code", {"pattern": "needle", "path_glob": "*a*a*a*a*a*a*a*ab"})
    assert answer == "no lines contain 'needle'"
    assert time.monotonic() - started < 1.0
    assert tools.run("search_code", {"pattern": "needle", "path_glob": "a" * 121}).startswith(
        "error: path_glob must be one line of at most 120 characters")
    assert tools.run("search_code", {"pattern": "needle", "path_glob": "*/" * 9}).startswith(
        "error: path_glob may use at most 8")
    assert tools.run("search_code", {"pattern": "needle", "path_glob": ["*.py"]}) == (
        "error: `path_glob` must be a string")
    assert tools.run("search_code", {"pattern": "x" * 201}).startswith("error: pattern must be one line")
    assert tools.run("read_file", {"path": "a/" * 600}).startswith("error: `path` may be at most 1000")
    assert tools.run("list_files", {"directory": "a/" * 600}).startswith("error: `directory` may be at most")
    assert tools.run("read_file", {"path": "app/calc.py", "end_line": 10**12}).startswith(
        "error: `end_line` must be an integer from 1 to 10,000,000")
    for definition in tool_definitions():  # the model is told the same limits
        for name, schema in definition["function"]["parameters"]["properties"].items():
            assert "maxLength" in schema or "maximum" in schema, name


@pytest.mark.parametrize(("glob", "path", "matches"), [
    ("app/*.py", "app/calc.py", True), ("app/*.py", "lib/app/calc.py", False), ("*.py", "x/y/z.py", True),
    ("src/**/*.py", "src/a/b/c.py", True), ("src/**/*.py", "src/c.py", True), ("/app/*.py", "app/x.py", True),
    ("docs/", "docs/a/b.md", True), ("test_*", "pkg/test_x/y.py", True), ("*.md", "app/calc.py", False),
])
def test_path_globs_keep_gitignore_meaning(glob: str, path: str, matches: bool) -> None:
    assert glob_matches(compile_glob(glob), path) is matches
