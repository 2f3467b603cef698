"""Unified diffs parsed with unidiff into files, hunks and commentable (side, line) sets."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from reviewbot.errors import DiffError

Side = Literal["RIGHT", "LEFT"]
Status = Literal["added", "removed", "modified", "renamed"]


@dataclass(frozen=True)
class DiffLine:
    kind: Literal["+", "-", " "]
    old: int | None
    new: int | None
    text: str


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    section: str
    lines: tuple[DiffLine, ...]

    def lines_on(self, side: Side) -> frozenset[int]:
        """Line numbers of this hunk that GitHub accepts a comment on, for one side."""
        if side == "RIGHT":
            return frozenset(ln.new for ln in self.lines if ln.new is not None)
        return frozenset(ln.old for ln in self.lines if ln.old is not None)


@dataclass(frozen=True)
class FileDiff:
    path: str
    old_path: str | None
    status: Status
    binary: bool
    hunks: tuple[Hunk, ...]

    @cached_property
    def _commentable(self) -> dict[Side, frozenset[int]]:
        right: set[int] = set()
        left: set[int] = set()
        for hunk in self.hunks:
            right |= hunk.lines_on("RIGHT")
            left |= hunk.lines_on("LEFT")
        return {"RIGHT": frozenset(right), "LEFT": frozenset(left)}

    def commentable(self, side: Side) -> frozenset[int]:
        return self._commentable[side]

    def hunk_index(self, side: Side, line: int) -> int | None:
        """Which hunk holds `line` on `side`, or None when the line is outside every hunk."""
        for index, hunk in enumerate(self.hunks):
            if line in hunk.lines_on(side):
                return index
        return None

    @property
    def added_lines(self) -> int:
        return sum(1 for h in self.hunks for ln in h.lines if ln.kind == "+")

    @property
    def removed_lines(self) -> int:
        return sum(1 for h in self.hunks for ln in h.lines if ln.kind == "-")


@dataclass(frozen=True)
class ParsedDiff:
    files: tuple[FileDiff, ...]

    def file(self, path: str) -> FileDiff | None:
        return next((f for f in self.files if f.path == path), None)


def parse_diff(text: str) -> ParsedDiff:
    """Parse a git-style unified diff; raise DiffError with the parser's reason when it is malformed."""
    try:
        patch = PatchSet(text.replace("\r\n", "\n"))
    except UnidiffParseError as exc:
        raise DiffError(f"could not parse the diff: {exc}") from exc
    return ParsedDiff(files=tuple(_file(pf) for pf in patch))


def _file(pf: Any) -> FileDiff:
    source = _strip_prefix(pf.source_file or "")
    target = _strip_prefix(pf.target_file or "")
    status: Status
    if pf.is_added_file:
        status, path, old = "added", target, None
    elif pf.is_removed_file:
        status, path, old = "removed", source, source
    elif source != target:
        status, path, old = "renamed", target, source
    else:
        status, path, old = "modified", target, source
    hunks = tuple(_hunk(h) for h in pf)
    return FileDiff(path=path, old_path=old, status=status,
                    binary=bool(pf.is_binary_file), hunks=hunks)


def _hunk(h: Any) -> Hunk:
    lines = []
    for line in h:
        if line.line_type not in ("+", "-", " "):
            continue  # "\ No newline at end of file" markers
        lines.append(DiffLine(kind=line.line_type, old=line.source_line_no, new=line.target_line_no,
                              text=line.value.rstrip("\n").rstrip("\r")))
    return Hunk(old_start=h.source_start, old_len=h.source_length,
                new_start=h.target_start, new_len=h.target_length,
                section=(h.section_header or "").strip(), lines=tuple(lines))


def _strip_prefix(name: str) -> str:
    if name == "/dev/null":
        return name
    return name[2:] if name[:2] in ("a/", "b/") else name


def render_numbered(file: FileDiff) -> str:
    """A file's hunks with explicit old/new line numbers, so the model can name lines GitHub accepts."""
    head = f"--- {file.old_path or '/dev/null'}\n+++ {file.path if file.status != 'removed' else '/dev/null'}"
    if file.binary:
        return f"{head}\n(binary file, not shown)"
    out = [head]
    for hunk in file.hunks:
        out.append(f"@@ -{hunk.old_start},{hunk.old_len} +{hunk.new_start},{hunk.new_len} @@ {hunk.section}".rstrip())
        for ln in hunk.lines:
            old = "" if ln.old is None else str(ln.old)
            new = "" if ln.new is None else str(ln.new)
            out.append(f"{old:>5} {new:>5} {ln.kind} {ln.text}")
    return "\n".join(out)
