"""Context selection the way a careful reviewer navigates: callers, callees, types, constants, tests, config."""

from __future__ import annotations

import builtins
import heapq
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from reviewbot.review.context.analysis import FileChange
from reviewbot.review.context.calls import first_call, whole_words
from reviewbot.review.context.index import RepoIndex, is_test, module_stem, shared_prefix
from reviewbot.review.diff.filters import added_text

MAX_FILES_PER_NAME = 15
MAX_OCCURRENCES = 8
MAX_BODY_LINES = 80
MAX_PICKS = 400
MAX_QUOTED = 100  # callers past the cap whose calling line is quoted in the left-out list (each is one file read)
_CONSTRUCTORS = {"__init__", "constructor", "new", "initialize"}
# Names every file uses and no repository defines: builtins and standard globals of the common languages.
_COMMON = frozenset(dir(builtins)) | frozenset(" ".join([
    "console Math JSON Object Array Promise String Number Boolean Error TypeError Date Map Set RegExp Symbol",
    "parseInt parseFloat require module exports window document process setTimeout fmt errors context strings",
    "make append panic recover println printf Println Printf Sprintf Errorf Vec Box Some None Ok Err String",
    "Option Result System Integer List HashMap ArrayList Override puts require_relative raise new",
    "malloc free memcpy strlen sizeof NULL std"]).split())
_STRING_KEY = re.compile(r"""["']([A-Za-z_][A-Za-z0-9_.-]{3,60})["']""")
_CONFIG_SUFFIXES = (".yml", ".yaml", ".toml", ".json", ".ini", ".cfg", ".conf", ".properties", ".env",
                    ".env.example", ".env.sample")
_WHAT = {"signature": "signature", "removed": "definition (removed or renamed)", "body": "body"}


@dataclass
class Pick:
    """A file worth showing, how strongly, why, and which base lines (empty ranges: the file's outline)."""

    path: str
    strength: float
    reason: str
    ranges: set[tuple[int, int]] = field(default_factory=set)
    reasons: list[tuple[float, str]] = field(default_factory=list)


class Selector:
    """Collects picks for one review; `picks()` ranks them, strongest relation first."""

    def __init__(self, index: RepoIndex, changes: list[FileChange]) -> None:
        self.index = index
        self.changes = changes
        self.changed_paths = {c.file.path for c in changes} | {c.file.old_path for c in changes if c.file.old_path}
        self._picks: dict[str, Pick] = {}
        self.left_out: dict[str, str] = {}  # path -> why it was related, for files past a per-name or total cap

    def add(self, path: str, strength: float, reason: str, ranges: Iterable[tuple[int, int]] = ()) -> None:
        pick = self._picks.get(path)
        if pick is None:
            pick = self._picks[path] = Pick(path, strength, reason)
        elif strength > pick.strength:
            pick.strength, pick.reason = strength, reason
        pick.ranges.update(ranges)
        pick.reasons.append((strength, reason))

    def picks(self) -> list[Pick]:
        for pick in self._picks.values():
            extra = sorted((s for s, _ in pick.reasons), reverse=True)[1:]
            pick.strength += 0.1 * sum(extra[:5])  # several relations to one file add up, a little
        ranked = sorted(self._picks.values(), key=lambda p: (-p.strength, p.path))
        for pick in ranked[MAX_PICKS:]:
            self.left_out.setdefault(pick.path, f"{pick.reason} (below the {MAX_PICKS} strongest relations)")
        return ranked[:MAX_PICKS]

    def select(self) -> list[Pick]:
        for change in self.changes:
            self._changed_file(change)
            self._reverse(change)
            self._forward(change)
            self._tests(change)
            self._config(change)
        return self.picks()

    def _changed_file(self, change: FileChange) -> None:
        """The base version of a changed file: the definitions its hunks touch."""
        old = change.file.old_path
        if change.base is None or old is None:
            return
        ranges = {self._around(old, line) for line in sorted(change.base_lines)[:400]}
        self.add(old, 95, "changed by this pull request (base version)", ranges)

    def _reverse(self, change: FileChange) -> None:
        """Callers and references of definitions whose signature, value or existence the PR changes."""
        for changed in change.changed:
            if changed.how == "added":
                continue
            name = changed.name
            if name in _CONSTRUCTORS and changed.definition.parent:
                name = changed.definition.parent
            strength = {"signature": 100.0, "removed": 100.0}.get(changed.how, 45.0)
            if changed.how == "body" and changed.kind not in ("function", "method"):
                continue
            files = [p for p in self.index.files_with(name) if p != (change.file.old_path or change.file.path)]
            if changed.how == "body" and len(files) > 20:
                continue  # a body change of a ubiquitous name: callers are not worth the tokens
            ambiguity = 1.0 if len(files) <= 8 else (8 / len(files)) ** 0.5
            what = "value" if changed.kind == "constant" and changed.how == "signature" else _WHAT[changed.how]
            reason = f"uses `{name}`, whose {what} this pull request changes"
            first = self._callers_first(files, change.file.path)
            self.index.prefetch(first)
            for path in first:
                self.add(path, strength * ambiguity, reason, self._occurrences(path, name))
            if changed.how != "body" and len(files) > len(first):
                shown = set(first)
                rest = [p for p in files if p not in shown and p not in self.changed_paths]
                self._list_callers(rest, name, f"{reason} ({len(files)} files use it; the "
                                               f"{MAX_FILES_PER_NAME} likeliest callers are included)")

    def _list_callers(self, paths: list[str], name: str, reason: str) -> None:
        """Callers past the cap, each with its first calling line (the first MAX_QUOTED): cheap to list, and
        the reader knows where to look."""
        quoted = paths[:MAX_QUOTED]
        self.index.prefetch(quoted)
        for n, path in enumerate(paths):
            found = first_call(self.index.text(path) or "", name) if n < MAX_QUOTED else None
            self.left_out.setdefault(path, f"{reason}; line {found[0]}: {found[1]}" if found else reason)

    def _callers_first(self, files: list[str], changed: str) -> list[str]:
        """The likeliest callers: files that name the changed module (its stem, as an identifier: what an
        import of it spells), then the nearest in the tree. A top-k over the index, no file text read."""
        importers = set(self.index.files_with(module_stem(changed)))
        return heapq.nsmallest(MAX_FILES_PER_NAME, files,
                               key=lambda p: (p not in importers, -shared_prefix(p, changed), p))

    def _forward(self, change: FileChange) -> None:
        """Definitions of what the new code calls or names: functions, types, constants."""
        local = change.defined_here
        for name, called in sorted(change.uses.items()):
            if len(name) < 3 or name in local or name in _COMMON:
                continue
            if called:
                strength, what = 80.0, "which the new code calls"
            elif name[:1].isupper() and not name.isupper():
                strength, what = 70.0, "a type the new code uses"
            elif name.isupper():
                strength, what = 65.0, "a constant the new code uses"
            else:
                continue  # attributes and locals: too many, too vague
            found = self.index.definitions_of(name, change.file.path, limit=3)
            places = len({path for path, _ in found})  # a name defined in several files: which one is meant?
            for n, (path, d) in enumerate(found):
                if path in self.changed_paths and path != change.file.old_path:
                    continue
                share = strength / (places ** 0.5 if n == 0 else places)  # the nearest is the likeliest
                self.add(path, share, f"defines `{name}`, {what}", [self._span(d.start, d.end, d.start)])

    def _tests(self, change: FileChange) -> None:
        if is_test(change.file.path):
            return
        for path in self.index.tests_for(change.file.path)[:3]:
            names = [c.name for c in change.changed]
            ranges = {r for n in names[:5] for r in self._occurrences(path, n)}
            self.add(path, 55, f"tests of {change.file.path}", ranges)

    def _config(self, change: FileChange) -> None:
        """Configuration files that define a key the new code names in a string literal."""
        keys = sorted(set(_STRING_KEY.findall(added_text(change.file))))[:8]
        for key in keys:
            word = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", key)[-1]
            for path in self.index.files_with(word)[:40]:
                if not path.endswith(_CONFIG_SUFFIXES) or key not in (self.index.text(path) or ""):
                    continue
                self.add(path, 50, f"configuration key `{key}` used by the new code",
                         self._occurrences(path, word, 4))
                break

    def _occurrences(self, path: str, name: str, limit: int = MAX_OCCURRENCES) -> set[tuple[int, int]]:
        text = self.index.text(path) or ""
        ranges: set[tuple[int, int]] = set()
        if name not in text:
            return ranges
        line, at = 1, 0
        for seen, start in enumerate(whole_words(text, name)):
            if seen >= limit * MAX_OCCURRENCES:
                break  # a name used hundreds of times in one file: the first uses are enough to show
            line += text.count("\n", at, start)  # counted on from the previous use, not from the top
            at = start
            ranges.add(self._around(path, line))
            if len(ranges) >= limit:
                break
        return ranges

    def _around(self, path: str, line: int) -> tuple[int, int]:
        """The enclosing definition of a line when it is short, else a window around the line."""
        parsed = self.index.parsed(path, force=path in self.changed_paths)
        d = parsed.enclosing(line) if parsed is not None else None
        if d is None:
            return (max(1, line - 5), line + 5)
        return self._span(d.start, d.end, line)

    @staticmethod
    def _span(start: int, end: int, line: int) -> tuple[int, int]:
        if end - start <= MAX_BODY_LINES:
            return (start, end)
        return (max(start, line - 15), line + 15) if line != start else (start, start + 30)

