"""The base tree as a reviewer searches it: which files mention a name, where names are defined, which are tests."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import PurePosixPath

from reviewbot.review.context.languages import language_for
from reviewbot.review.context.snapshot import Snapshot
from reviewbot.review.context.symbols import Definition, Parsed, parse

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_INDEXED_FILE_CHARS = 256_000
MAX_INDEXED_CHARS = 64_000_000  # beyond this the index stops growing: monorepos get nearest-first coverage
MAX_PARSES = 600  # tree-sitter parses per review, so that one review's context costs bounded time
_TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing"})
_TEST_NAME = re.compile(r"(^test_|_test\.|\.test\.|\.spec\.|_spec\.|Tests?\.(java|kt|cs)$|_tests?\.rs$)")
_DEF_BEFORE = re.compile(r"\b(?:def|class|function|func|fn|struct|interface|trait|enum|type|const|let|var|module|"
                         r"static|macro_rules!)\s+(?:\([^)]*\)\s*)?$")
MAX_CANDIDATES = 40  # files examined per name, nearest first: a name in hundreds of files is not worth more


def is_test(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return bool(_TEST_NAME.search(parts[-1])) or any(p in _TEST_DIRS for p in parts[:-1])


def module_stem(path: str) -> str:
    """`pkg/cart_item.py` -> `cart_item`; what imports and test names are built from."""
    name = PurePosixPath(path).name
    return name.split(".", 1)[0]


class RepoIndex:
    """Lazy, per-review caches over a snapshot; every answer is deterministic (sorted paths)."""

    def __init__(self, snapshot: Snapshot, skip: Callable[[str], bool]) -> None:
        self.snapshot = snapshot
        self._skip = skip
        self._texts: dict[str, str | None] = {}
        self._parsed: dict[str, Parsed | None] = {}
        self._postings: dict[str, list[str]] | None = None
        self._tests: defaultdict[str, list[str]] | None = None
        self._definitions: dict[tuple[str, str, int], list[tuple[str, Definition]]] = {}
        self.parses = 0

    def is_skipped(self, path: str) -> bool:
        return self._skip(path)

    def text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = self.snapshot.read(path)
        return self._texts[path]

    def parsed(self, path: str, *, force: bool = False) -> Parsed | None:
        """A file's definitions; None past the parse allowance (unless forced: the changed files themselves)."""
        if path not in self._parsed:
            if self.parses >= MAX_PARSES and not force:
                return None
            text = self.text(path)
            self.parses += 1
            self._parsed[path] = parse(path, text) if text is not None else None
        return self._parsed[path]

    def _build(self) -> dict[str, list[str]]:
        postings: defaultdict[str, list[str]] = defaultdict(list)
        total = 0
        for path in self.snapshot.paths():
            if self._skip(path):
                continue
            text = self.text(path)
            if text is None or len(text) > MAX_INDEXED_FILE_CHARS:
                continue
            total += len(text)
            if total > MAX_INDEXED_CHARS:
                break
            for name in set(IDENT.findall(text)):
                postings[name].append(path)
        return postings

    def files_with(self, name: str) -> list[str]:
        """Indexed files whose text contains the identifier `name` (in path order)."""
        if self._postings is None:
            self._postings = self._build()
        return self._postings.get(name, [])

    def definitions_of(self, name: str, near: str, limit: int = 12) -> list[tuple[str, Definition]]:
        """Where `name` is defined, nearest to `near` first; candidates are pre-screened by text before parsing."""
        key = (name, near.rsplit("/", 1)[0], limit)
        if key not in self._definitions:
            self._definitions[key] = self._find_definitions(name, near, limit)
        return self._definitions[key]

    def _find_definitions(self, name: str, near: str, limit: int) -> list[tuple[str, Definition]]:
        candidates = sorted(self.files_with(name), key=lambda p: (-shared_prefix(p, near), p))[:MAX_CANDIDATES]
        found: list[tuple[str, Definition]] = []
        for path in candidates:
            if len(found) >= limit:
                break
            text = self.text(path) or ""
            if language_for(path) not in ("java", "c", "cpp") and not looks_defined(text, name):
                continue
            parsed = self.parsed(path)
            if parsed is None:
                continue
            found += [(path, d) for d in parsed.definitions if d.name == name]
        return found[:limit]

    def tests_for(self, path: str) -> list[str]:
        """Test files named after a module: test_x.py, x_test.go, x.test.ts, XTest.java, x_spec.rb..."""
        if self._tests is None:
            self._tests = defaultdict(list)
            for candidate in self.snapshot.paths():
                if is_test(candidate) and not self._skip(candidate):
                    self._tests[tested_stem(candidate)].append(candidate)
        stem = module_stem(path).lower()
        return [t for t in self._tests.get(stem, []) if t != path] if len(stem) >= 3 else []


def tested_stem(path: str) -> str:
    """The module a test file is named after: `test_cart.py`, `cart_test.go`, `CartTest.java` -> `cart`."""
    base = module_stem(path).lower()
    for prefix in ("test_",):
        base = base.removeprefix(prefix)
    for suffix in ("_tests", "_test", "_spec", "tests", "test"):
        if base.endswith(suffix) and len(base) > len(suffix):
            return base.removesuffix(suffix)
    return base


def shared_prefix(a: str, b: str) -> int:
    """How many leading directories two paths share: a cheap measure of how close two files are."""
    count = 0
    for x, y in zip(a.split("/")[:-1], b.split("/")[:-1], strict=False):
        if x != y:
            break
        count += 1
    return count


def looks_defined(text: str, name: str) -> bool:
    """Whether some line holds `name` as a whole word after a definition keyword or at its start (indented):
    a cheap textual screen before paying for a parse."""
    start = 0
    while (i := text.find(name, start)) != -1:
        start = i + len(name)
        if (i and (text[i - 1].isalnum() or text[i - 1] == "_")) or \
                (start < len(text) and (text[start].isalnum() or text[start] == "_")):
            continue
        before = text[text.rfind("\n", 0, i) + 1:i]
        if not before.strip() or _DEF_BEFORE.search(before):
            return True
    return False
