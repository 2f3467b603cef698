"""Each file's facts for the audit's call graph (what it defines, the identifiers it uses), kept per content: an
audit parses only the blobs no earlier audit parsed. Keyed by git blob id and language: the same bytes parse
differently as `.py` and as `.js`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from reviewbot.audit.elision import Ranges, elided_lines
from reviewbot.audit.pyfacts import PyModule
from reviewbot.review.context.identifiers import Names, identifiers
from reviewbot.review.context.index import MAX_INDEXED_FILE_CHARS
from reviewbot.review.context.languages import language_for
from reviewbot.review.context.store import git_blob_id
from reviewbot.review.context.symbols import Definition, Parsed

Parse = Callable[[str, str], Sequence[Definition] | Parsed]  # (path, text) -> its definitions, or the whole parse
Key = tuple[str, str]  # (git blob id of the text, language or "" for the plain-text fallback)


@dataclass(frozen=True)
class FileFacts:
    definitions: tuple[Definition, ...]
    names: frozenset[str]  # every identifier the text holds
    elided: Ranges = ()  # lines the audit's prompt leaves out (long docstrings, comment blocks)


class FactCache(Protocol):
    """Per-content facts that outlive one audit; a cache that cannot answer answers nothing (never raises)."""

    def get(self, keys: Sequence[Key]) -> dict[Key, FileFacts]:
        """The facts known for these keys (the others are absent)."""
        ...

    def get_definitions(self, keys: Sequence[Key]) -> dict[Key, tuple[Definition, ...]]:
        """Just the definitions of `get` (a verification's index asks for nothing else)."""
        ...

    def get_names(self, keys: Sequence[Key]) -> dict[Key, str]:
        """Just the identifiers of `get`, joined by spaces (the context index stores them so)."""
        ...

    def put(self, entries: Mapping[Key, FileFacts]) -> None:
        ...

    def get_python(self, blobs: Sequence[str]) -> dict[str, PyModule | None]:
        """Flow listing's facts of these Python blobs (pyfacts.py; None: not Python), for those known."""
        ...

    def put_python(self, entries: Mapping[str, PyModule | None]) -> None:
        ...


@dataclass
class MemoryFacts:
    """A FactCache in memory: one process's audits, and tests."""

    entries: dict[Key, FileFacts] = field(default_factory=dict)
    python: dict[str, PyModule | None] = field(default_factory=dict)

    def get(self, keys: Sequence[Key]) -> dict[Key, FileFacts]:
        return {k: f for k in keys if (f := self.entries.get(k)) is not None}

    def get_definitions(self, keys: Sequence[Key]) -> dict[Key, tuple[Definition, ...]]:
        return {k: f.definitions for k, f in self.get(keys).items()}

    def get_names(self, keys: Sequence[Key]) -> dict[Key, str]:
        return {k: " ".join(sorted(f.names)) for k, f in self.get(keys).items()}

    def put(self, entries: Mapping[Key, FileFacts]) -> None:
        self.entries.update(entries)

    def get_python(self, blobs: Sequence[str]) -> dict[str, PyModule | None]:
        return {b: self.python[b] for b in blobs if b in self.python}

    def put_python(self, entries: Mapping[str, PyModule | None]) -> None:
        self.python.update(entries)


class Counted:
    """A definitions source that counts the files it is asked about: those no cache knew (logs, benchmarks)."""

    def __init__(self, definitions: Parse) -> None:
        self.definitions = definitions
        self.count = 0

    def __call__(self, path: str, text: str) -> Sequence[Definition] | Parsed:
        self.count += 1
        return self.definitions(path, text)


def known_definitions(cache: FactCache) -> Callable[[Sequence[tuple[str, str]]], dict[str, tuple[Definition, ...]]]:
    """(path, blob id) pairs -> the definitions the cache holds for them, for the context index (`RepoIndex`): a
    verification then parses only what no plan parsed. Facts without definitions are not answered (a file too big
    to index has none, where the index parses it)."""
    def known(files: Sequence[tuple[str, str]]) -> dict[str, tuple[Definition, ...]]:
        keys = {path: (blob, language_for(path) or "") for path, blob in files}
        found = cache.get_definitions(sorted(set(keys.values())))
        return {p: defs for p, k in keys.items() if (defs := found.get(k))}
    return known


def known_names(cache: FactCache) -> Callable[[Sequence[tuple[str, str]]], dict[str, Names]]:
    """(path, blob id) pairs -> the identifiers the cache holds for them, for the context index's first indexing of
    a tree (a verification then tokenises only the files no plan did: the audited ones are known)."""
    def known(files: Sequence[tuple[str, str]]) -> dict[str, Names]:
        keys = {path: (blob, language_for(path) or "") for path, blob in files}
        found = cache.get_names(sorted(set(keys.values())))
        return {p: Names(joined) for p, k in keys.items() if (joined := found.get(k)) is not None}
    return known


def key_of(path: str, text: str) -> Key:
    """The content's git blob id (of the text as read, so an edited work tree is never confused with its
    index) and the language the path's extension selects."""
    return git_blob_id(text.encode("utf-8", errors="replace")), language_for(path) or ""


def parse_facts(path: str, text: str, definitions: Parse) -> FileFacts:
    """One parse and one identifier scan; a file too big to index has no facts (as in the review's index)."""
    if len(text) > MAX_INDEXED_FILE_CHARS:
        return FileFacts((), frozenset())
    found = definitions(path, text)
    if isinstance(found, Parsed):  # the parse made a syntax tree: elision reads it instead of parsing again
        return FileFacts(found.definitions, frozenset(identifiers(text)), elided_lines(path, text, found.tree))
    return FileFacts(tuple(found), frozenset(identifiers(text)), elided_lines(path, text))


def file_facts(texts: Mapping[str, str], definitions: Parse,
               cache: FactCache | None = None) -> dict[str, FileFacts]:
    """path -> its facts: from the cache where it knows the content, parsed (and written back) where not."""
    if cache is None:
        return {path: parse_facts(path, text, definitions) for path, text in texts.items()}
    keys = {path: key_of(path, text) for path, text in texts.items()}
    known = cache.get(sorted(set(keys.values())))
    fresh: dict[Key, FileFacts] = {}
    out: dict[str, FileFacts] = {}
    for path, text in texts.items():
        key = keys[path]
        found = known.get(key) or fresh.get(key)
        if found is None:
            found = fresh[key] = parse_facts(path, text, definitions)
        out[path] = found
    if fresh:
        cache.put(fresh)
    return out
