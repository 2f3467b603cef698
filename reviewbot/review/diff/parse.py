"""Unified diffs parsed with unidiff into files, hunks and commentable (side, line) sets."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from reviewbot.errors import DiffError
from reviewbot.review.diff.headers import ChunkHeader, read_header, split_chunks, strip_prefix

Side = Literal["RIGHT", "LEFT"]
Status = Literal["added", "removed", "modified", "renamed", "copied"]
MAX_FILE_DIFF_CHARS = 2_000_000  # a file's diff beyond this is listed as too large, never parsed into lines


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
    old_mode: str | None = None
    new_mode: str | None = None
    diff_chars: int = 0
    too_large: bool = False

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
class DiffProblem:
    """A part of the diff that could not be read; the review goes on without it and says so."""

    path: str
    reason: str


@dataclass(frozen=True)
class ParsedDiff:
    files: tuple[FileDiff, ...]
    problems: tuple[DiffProblem, ...] = ()

    @cached_property
    def _by_path(self) -> dict[str, FileDiff]:
        return {f.path: f for f in self.files}

    def file(self, path: str) -> FileDiff | None:
        return self._by_path.get(path)


def parse_diff(text: str | bytes) -> ParsedDiff:
    """Parse a git diff file by file; a file that does not parse becomes a problem, not a failure.

    Raises DiffError only when nothing at all could be read from a non-empty diff.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    files: list[FileDiff] = []
    problems: list[DiffProblem] = []
    for chunk in split_chunks(text.replace("\r\n", "\n")):
        head = read_header(chunk)
        path = head.new_path or head.old_path or "(unknown file)"
        try:
            files.extend(_chunk_files(chunk, head))
        except UnidiffParseError as exc:
            problems.append(DiffProblem(path, f"could not parse its diff ({exc}); it was not reviewed"))
    if not files and problems:
        raise DiffError(f"could not parse the diff: {problems[0].reason}")
    return ParsedDiff(files=tuple(files), problems=tuple(problems))


def _chunk_files(chunk: str, head: ChunkHeader) -> list[FileDiff]:
    if head.binary or not head.has_hunks or len(chunk) > MAX_FILE_DIFF_CHARS:
        path = head.new_path if head.status != "removed" else head.old_path
        if path is None:
            return []
        old = None if head.status == "added" else head.old_path
        return [FileDiff(path=path, old_path=old, status=head.status,  # type: ignore[arg-type]
                         binary=head.binary, hunks=(), old_mode=head.old_mode, new_mode=head.new_mode,
                         diff_chars=len(chunk), too_large=len(chunk) > MAX_FILE_DIFF_CHARS)]
    git = chunk.startswith("diff --git ")
    return [_file(pf, head if git else None, len(chunk)) for pf in PatchSet(chunk)]


def _file(pf: Any, head: ChunkHeader | None, size: int) -> FileDiff:
    """A FileDiff; with a git header its status wins over unidiff's guesses (an emptied file is not deleted)."""
    source = strip_prefix(pf.source_file or "/dev/null")
    target = strip_prefix(pf.target_file or "/dev/null")
    status: Status
    if head is not None:
        status = head.status  # type: ignore[assignment]
        path = (target if status != "removed" else source) or head.new_path or head.old_path or ""
        old = None if status == "added" else (source or head.old_path)
    elif pf.is_added_file or source is None:
        status, path, old = "added", target or "", None
    elif pf.is_removed_file or target is None:
        status, path, old = "removed", source, source
    elif source != target:
        status, path, old = "renamed", target, source
    else:
        status, path, old = "modified", target, source
    hunks = tuple(_hunk(h) for h in pf)
    return FileDiff(path=path, old_path=old, status=status, binary=bool(pf.is_binary_file), hunks=hunks,
                    old_mode=head.old_mode if head else None, new_mode=head.new_mode if head else None,
                    diff_chars=size)


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


def render_numbered(file: FileDiff) -> str:
    """A file's hunks with explicit old/new line numbers, so the model can name lines GitHub accepts."""
    head = f"--- {file.old_path or '/dev/null'}\n+++ {file.path if file.status != 'removed' else '/dev/null'}"
    if file.status in ("renamed", "copied"):
        head += f"\n({file.status} from {file.old_path})"
    if file.old_mode and file.new_mode and file.old_mode != file.new_mode:
        head += f"\n(mode {file.old_mode} -> {file.new_mode})"
    if file.binary:
        return f"{head}\n(binary file, not shown)"
    if file.too_large:
        return f"{head}\n(a diff of {file.diff_chars / 1e6:.1f} MB, too large to show)"
    out = [head]
    for hunk in file.hunks:
        out.append(f"@@ -{hunk.old_start},{hunk.old_len} +{hunk.new_start},{hunk.new_len} @@ {hunk.section}".rstrip())
        for ln in hunk.lines:
            old = "" if ln.old is None else str(ln.old)
            new = "" if ln.new is None else str(ln.new)
            out.append(f"{old:>5} {new:>5} {ln.kind} {ln.text}")
    return "\n".join(out)
