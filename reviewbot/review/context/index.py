"""The base tree as a reviewer searches it: which files mention a name, where names are defined, which are tests."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import PurePosixPath

from reviewbot.review.context.identifiers import Names, identifiers
from reviewbot.review.context.languages import language_for
from reviewbot.review.context.snapshot import Snapshot
from reviewbot.review.context.store import BlobSnapshot, IndexStore
from reviewbot.review.context.symbols import Definition, Parsed, parse

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_INDEXED_FILE_CHARS = 256_000
MAX_INDEXED_CHARS = 64_000_000  # beyond this the index stops growing: monorepos get nearest-first coverage
MAX_PARSES = 600  # tree-sitter parses per review, so that one review's context costs bounded time
_TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing"})
_TEST_NAME = re.compile(r"(^test_|_test\.|\.test\.|\.spec\.|_spec\.|Tests?\.(java|kt|cs)$|_tests?\.rs$)")
_DEF_BEFORE = re.compile(r"\b(?:def|class|function|func|fn|struct|interface|trait|enum|type|const|let|var|module|"
                         r"static|macro_rules!)\s+(?:\([^)]*\)\s*)?$")
# (path, blob id) pairs -> the definitions known for those blobs (the others absent)
Known = Callable[[Sequence[tuple[str, str]]], Mapping[str, tuple[Definition, ...]]]
KnownNames = Callable[[Sequence[tuple[str, str]]], Mapping[str, Iterable[str]]]  # the same, their identifiers
INDEX_BATCH = 2_000  # files whose names are written to the store together
# New files a review indexes, nearest to its change first; later reviews index the rest. A first review of Django
# (6,875 files) indexed them all, about 1 CPU s of its 3: this one indexes the changed folders and their neighbours.
FILES_PER_REVIEW = 2_000
MAX_CANDIDATES = 40  # files examined per name, nearest first: a name in hundreds of files is not worth more


def is_test(path: str) -> bool:
    folders, _, name = path.rpartition("/")
    return bool(_TEST_NAME.search(name)) or any(p in _TEST_DIRS for p in folders.split("/"))


def module_stem(path: str) -> str:
    """`pkg/cart_item.py` -> `cart_item`; what imports and test names are built from."""
    name = PurePosixPath(path).name
    return name.split(".", 1)[0]


class RepoIndex:
    """Lazy, per-review caches over a snapshot; every answer is deterministic (sorted paths).

    With a store and a snapshot that knows blob ids, names and definitions come from the store: a review
    reads and parses only the file contents no earlier review has seen.
    """

    def __init__(self, snapshot: Snapshot, skip: Callable[[str], bool], store: IndexStore | None = None,
                 near: Sequence[str] = (), per_review: int = FILES_PER_REVIEW, known: Known | None = None,
                 known_names: KnownNames | None = None) -> None:
        self.snapshot = snapshot
        self.near = near  # the changed files: what a review indexes first
        self.per_review = per_review
        self.unindexed = 0  # files the store lacks after this review (later reviews index them)
        self._skip = skip
        self._store = store if isinstance(snapshot, BlobSnapshot) else None
        self._known = known  # definitions another cache holds per blob (the audit's facts), asked after the store
        self._known_names = known_names  # identifiers it holds: a blob new to the store is then not tokenised
        self._blobs: dict[str, str] = {}  # path -> blob id (stored mode)
        self._paths_of: defaultdict[str, list[str]] = defaultdict(list)  # blob id -> paths
        self._with: dict[str, list[str]] = {}
        self._built = False
        self._texts: dict[str, str | None] = {}
        self._parsed: dict[str, Parsed | None] = {}
        self._asked: set[str] = set()  # paths whose stored definitions were looked up
        self._postings: dict[str, list[str]] | None = None
        self._tests: defaultdict[str, list[str]] | None = None
        self._definitions: dict[tuple[str, str, int], list[tuple[str, Definition]]] = {}
        self._by_name: dict[str, dict[str, list[Definition]]] = {}  # path -> its definitions by name
        self.parses = 0

    def is_skipped(self, path: str) -> bool:
        return self._skip(path)

    def text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = self.snapshot.read(path)
        return self._texts[path]

    def prefetch(self, paths: list[str]) -> None:
        """Read these files in one go when the snapshot can (one round trip to git instead of one each)."""
        missing = [p for p in paths if p not in self._texts]
        if len(missing) > 1 and isinstance(self.snapshot, BlobSnapshot):
            self._texts.update(self.snapshot.read_many(missing))
            self._texts.update((p, None) for p in missing if p not in self._texts)

    def parsed(self, path: str, *, force: bool = False) -> Parsed | None:
        """A file's definitions; None past the parse allowance (unless forced: the changed files themselves)."""
        if path not in self._parsed and self._ensure():
            self._stored([path])
        if path not in self._parsed:
            if self.parses >= MAX_PARSES and not force:
                return None
            text = self.text(path)
            self.parses += 1
            parsed = parse(path, text) if text is not None else None
            if parsed is not None:  # definitions are all a base file is asked for: the syntax tree is let go
                parsed = Parsed(parsed.language, parsed.definitions, None, b"")
            self._parsed[path] = parsed
            if parsed is not None and self._store is not None and path in self._blobs:
                self._store.add_definitions(self._blobs[path], language_for(path) or "", parsed.definitions)
        return self._parsed[path]

    def _ensure(self) -> bool:
        """Whether the store answers; its first use indexes the blobs it lacks."""
        if self._store is None or not isinstance(self.snapshot, BlobSnapshot):
            return False
        if not self._built:
            self._built = True
            self._build_stored(self._store, self.snapshot)
        return True

    def _stored(self, paths: list[str]) -> None:
        """Definitions of these files from the store, for those parsed by an earlier review: no parse needed."""
        if self._store is None:
            return
        by_language: defaultdict[str | None, list[str]] = defaultdict(list)
        for path in paths:
            if path not in self._parsed and path in self._blobs and path not in self._asked:
                self._asked.add(path)  # the store's answer does not change within a review: asked once
                by_language[language_for(path)].append(path)
        for language, wanted in by_language.items():
            found = self._store.definitions([self._blobs[p] for p in wanted], language or "")
            for path in wanted:
                if (defs := found.get(self._blobs[path])) is not None:
                    self._parsed[path] = Parsed(language, defs, None, b"")
            missing = [(p, self._blobs[p]) for p in wanted if p not in self._parsed]
            for path, defs in (self._known(missing) if self._known is not None and missing else {}).items():
                self._parsed[path] = Parsed(language, defs, None, b"")

    def _build_stored(self, store: IndexStore, snapshot: BlobSnapshot) -> None:
        """Index the blobs the store has not seen; the rest is answered by the store."""
        for path, blob in snapshot.blob_ids().items():
            if not self._skip(path):
                self._blobs[path] = blob
                self._paths_of[blob].append(path)
        known = store.known(self._paths_of)
        new: list[tuple[str, Iterable[str]]] = []
        total = 0
        unseen = [paths[0] for blob, paths in self._paths_of.items() if blob not in known]
        if len(unseen) > self.per_review:
            unseen = nearest_first(unseen, self.near)
        self.unindexed = len(unseen)
        batch = unseen[:self.per_review]
        given = self._known_names([(p, self._blobs[p]) for p in batch]) if self._known_names and batch else {}
        for path, text in snapshot.read_many(batch):  # read once, not kept: memory stays flat
            if text is None or len(text) > MAX_INDEXED_FILE_CHARS:
                new.append((self._blobs[path], set()))
                self.unindexed -= 1
                continue
            total += len(text)
            if total > MAX_INDEXED_CHARS:
                break  # the next review goes on from here
            self.unindexed -= 1
            # stored as one string: never split into a set (read all the same: its size counts towards the bound)
            new.append((self._blobs[path], given[path] if path in given else Names.of(text)))
            if len(new) >= INDEX_BATCH:
                store.add_names(new)  # in batches: a first review of a large repository holds one at a time
                new = []
        store.add_names(new)

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
            for name in identifiers(text):
                postings[name].append(path)
        return postings

    def files_with(self, name: str) -> list[str]:
        """Indexed files whose text contains the identifier `name` (in path order)."""
        if self._ensure():
            assert self._store is not None
            if name not in self._with:
                self._with[name] = sorted(p for b in self._store.blobs_with(name) for p in self._paths_of.get(b, ()))
            return self._with[name]
        if self._postings is None:
            self._postings = self._build()
        return self._postings.get(name, [])

    def nearest(self, paths: list[str], near: str, count: int) -> list[str]:
        """The `count` paths (sorted, as `files_with` gives them) closest to `near` in the tree, ties by path.

        The paths sharing `near`'s first k folders are one contiguous run of a sorted list (those starting with
        `d1/…/dk/`), so each level is found by bisection, nearest level first: no key per path, and a name in
        thousands of files costs a few bisections, not a pass over them all."""
        folders = near.split("/")[:-1]
        out: list[str] = []
        inner: tuple[int, int] | None = None  # the run of the nearest level that has any paths
        for k in range(len(folders), -1, -1):
            prefix = "".join(f + "/" for f in folders[:k])
            lo = bisect_left(paths, prefix)
            hi = bisect_left(paths, prefix[:-1] + "0") if prefix else len(paths)  # "0" sorts right after "/"
            start, end = inner or (lo, lo)  # this level without the nearer run inside it: two runs, in path order
            level = paths[lo:start] + paths[end:hi]
            out += level[:count - len(out)]
            if len(out) >= count:
                break
            if hi > lo:
                inner = (lo, hi)
        return out

    def definitions_of(self, name: str, near: str, limit: int = 12) -> list[tuple[str, Definition]]:
        """Where `name` is defined, nearest to `near` first; candidates are pre-screened by text before parsing."""
        key = (name, near.rsplit("/", 1)[0], limit)
        if key not in self._definitions:
            self._definitions[key] = self._find_definitions(name, near, limit)
        return self._definitions[key]

    def _find_definitions(self, name: str, near: str, limit: int) -> list[tuple[str, Definition]]:
        candidates = self.nearest(self.files_with(name), near, MAX_CANDIDATES)
        self._stored(candidates)
        self.prefetch([p for p in candidates if p not in self._parsed])
        found: list[tuple[str, Definition]] = []
        for path in candidates:
            if len(found) >= limit:
                break
            if path not in self._parsed:
                text = self.text(path) or ""
                if language_for(path) not in ("java", "c", "cpp") and not looks_defined(text, name):
                    continue
            parsed = self.parsed(path)
            if parsed is None:
                continue
            found += [(path, d) for d in self._named(path, parsed).get(name, ())]
        return found[:limit]

    def _named(self, path: str, parsed: Parsed) -> dict[str, list[Definition]]:
        """A file's definitions by name, in the file's order (a verification asks a file about many names)."""
        if (by_name := self._by_name.get(path)) is None:
            by_name = self._by_name[path] = {}
            for d in parsed.definitions:
                by_name.setdefault(d.name, []).append(d)
        return by_name

    def tests_for(self, path: str) -> list[str]:
        """Test files named after a module: test_x.py, x_test.go, x.test.ts, XTest.java, x_spec.rb..."""
        if self._tests is None:
            self._tests = defaultdict(list)
            for candidate in self.snapshot.paths():
                if is_test(candidate) and not self._skip(candidate):
                    self._tests[tested_stem(candidate)].append(candidate)
        stem = module_stem(path).lower()
        return [t for t in self._tests.get(stem, []) if t != path] if len(stem) >= 3 else []


def nearest_first(paths: list[str], near: Sequence[str]) -> list[str]:
    """`paths` ordered by how many leading folders they share with the nearest of `near`, most first, then by
    path: the files a review's names most likely lead to (its package, then the packages around it)."""
    depth: dict[str, int] = {}  # "a/b/" -> 2, for every folder holding a file of `near`
    for changed in near:
        folders = changed.split("/")[:-1]
        for k in range(1, len(folders) + 1):
            depth["".join(f + "/" for f in folders[:k])] = k

    def shared(path: str) -> int:
        folder = path.rpartition("/")[0]
        while folder:
            if (k := depth.get(folder + "/")) is not None:
                return k
            folder = folder.rpartition("/")[0]
        return 0

    return sorted(paths, key=lambda p: (-shared(p), p))


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
    return _shared_dirs(a.rpartition("/")[0], b.rpartition("/")[0])


@lru_cache(maxsize=65_536)
def _shared_dirs(a: str, b: str) -> int:
    if not a or not b:
        return 0
    count = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
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
        if not before.strip():
            return True
        # The pattern ends in a space or a closing parenthesis (`def `, `fn (self *T) `): other lines, most of
        # them, are not searched (a search tries every position of the line).
        if (before[-1].isspace() or before.rstrip().endswith(")")) and _DEF_BEFORE.search(before):
            return True
    return False
