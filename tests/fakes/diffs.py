"""Git-style unified diffs: produce them like `git diff` does, and parse them like GitHub does.

The fake GitHub serves diffs it computed itself, then validates review comments against the *served*
text (which may also be a hand-written override), so both halves live here.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

Side = Literal["LEFT", "RIGHT"]
FileStatus = Literal["added", "removed", "modified", "renamed"]

_CONTEXT = 3
# git's default hunk-header function-name heuristic copies at most this many bytes (xdiff's def_ff).
_FUNCNAME_MAX = 80
_FUNCNAME_START = re.compile(r"[A-Za-z_$]")
_NO_NEWLINE = "\\ No newline at end of file"
_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ZERO_ABBREV = "0000000"


def git_blob_sha(content: str) -> str:
    """The object id git gives a file with this content, so `index` lines look like real ones."""
    data = content.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _git_lines(text: str) -> list[str]:
    # str.splitlines() also splits on \r, \x0c, \u2028...; git only ever splits on \n.
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _range(start: int, stop: int) -> str:
    # git (and difflib) omit a length of 1 and print an empty range as the line *before* it.
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def _funcname(old_lines: list[str], hunk_start: int) -> str:
    """git's default: the nearest line above the hunk that starts with a letter, `_` or `$`."""
    for line in reversed(old_lines[:hunk_start]):
        if _FUNCNAME_START.match(line):
            return line.rstrip("\n")[:_FUNCNAME_MAX].rstrip()
    return ""


def _emit(prefix: str, line: str) -> Iterator[str]:
    if line.endswith("\n"):
        yield prefix + line
    else:
        yield f"{prefix}{line}\n{_NO_NEWLINE}\n"


def _hunks(old: str, new: str) -> Iterator[str]:
    a, b = _git_lines(old), _git_lines(new)
    # autojunk would treat frequent lines (blank lines, braces) as noise and give un-git-like hunks.
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(_CONTEXT):
        first, last = group[0], group[-1]
        header = f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@"
        name = _funcname(a, first[1])
        yield f"{header} {name}\n" if name else f"{header}\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for line in a[i1:i2]:
                    yield from _emit(" ", line)
                continue
            for line in a[i1:i2]:
                yield from _emit("-", line)
            for line in b[j1:j2]:
                yield from _emit("+", line)


def _file_diff(old_path: str, new_path: str, old: str | None, new: str | None) -> str:
    out = [f"diff --git a/{old_path} b/{new_path}\n"]
    old_id = git_blob_sha(old)[:7] if old is not None else _ZERO_ABBREV
    new_id = git_blob_sha(new)[:7] if new is not None else _ZERO_ABBREV
    if old is None:
        out.append("new file mode 100644\n")
        out.append(f"index {old_id}..{new_id}\n")
    elif new is None:
        out.append("deleted file mode 100644\n")
        out.append(f"index {old_id}..{new_id}\n")
    else:
        out.append(f"index {old_id}..{new_id} 100644\n")
    hunks = "".join(_hunks(old or "", new or ""))
    # git prints no ---/+++ lines when there is no hunk (an empty file added or deleted).
    if hunks:
        out.append(f"--- a/{old_path}\n" if old is not None else "--- /dev/null\n")
        out.append(f"+++ b/{new_path}\n" if new is not None else "+++ /dev/null\n")
        out.append(hunks)
    return "".join(out)


def _exact_renames(removed: dict[str, str], added: dict[str, str]) -> dict[str, str]:
    """Pair deleted and added files with identical, non-empty content (git's 100% similarity renames)."""
    renames: dict[str, str] = {}
    taken: set[str] = set()
    for old_path in sorted(removed):
        for new_path in sorted(added):
            if new_path not in taken and removed[old_path] and removed[old_path] == added[new_path]:
                renames[new_path] = old_path
                taken.add(new_path)
                break
    return renames


def git_diff(base: Mapping[str, str], head: Mapping[str, str]) -> str:
    """The text `git diff base head` prints for these two trees (text files, mode 100644 only)."""
    removed = {p: c for p, c in base.items() if p not in head}
    added = {p: c for p, c in head.items() if p not in base}
    renames = _exact_renames(removed, added)
    sections: list[tuple[str, str]] = []
    for new_path, old_path in renames.items():
        sections.append(
            (
                new_path,
                f"diff --git a/{old_path} b/{new_path}\nsimilarity index 100%\n"
                f"rename from {old_path}\nrename to {new_path}\n",
            )
        )
    renamed_from = set(renames.values())
    for path in sorted(set(base) | set(head)):
        if path in renames or path in renamed_from:
            continue
        old, new = base.get(path), head.get(path)
        if old != new:
            sections.append((path, _file_diff(path, path, old, new)))
    return "".join(text for _, text in sorted(sections))


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "+", "-", " ", or "\\" for the no-newline marker
    text: str  # the line as it appears in the diff, prefix included
    old_line: int | None
    new_line: int | None
    position: int  # GitHub's legacy "position": lines below the file's first @@ header


@dataclass
class Hunk:
    header: str
    lines: list[DiffLine] = field(default_factory=list)


@dataclass
class FileDiff:
    path: str
    old_path: str
    status: FileStatus
    patch: str  # the file's hunks, from the first @@ on, without the final newline (as GitHub sends it)
    hunks: list[Hunk] = field(default_factory=list)
    additions: int = 0
    deletions: int = 0
    # (side, line) -> (hunk index, index within the hunk), i.e. every line a review comment may target.
    commentable: dict[tuple[Side, int], tuple[int, int]] = field(default_factory=dict)
    positions: dict[int, tuple[int, int]] = field(default_factory=dict)

    def locate(self, side: Side, line: int) -> tuple[int, int] | None:
        return self.commentable.get((side, line))

    def diff_hunk(self, hunk_index: int, line_index: int) -> str:
        """The `diff_hunk` GitHub attaches to a review comment: the hunk up to the commented line."""
        hunk = self.hunks[hunk_index]
        return "\n".join([hunk.header] + [line.text for line in hunk.lines[: line_index + 1]])

    def line_at(self, hunk_index: int, line_index: int) -> DiffLine:
        return self.hunks[hunk_index].lines[line_index]


def _strip_prefix(path: str) -> str:
    return path[2:] if path[:2] in ("a/", "b/") else path


def _parse_header(lines: list[str]) -> tuple[str, str, FileStatus]:
    # Ambiguous when a path contains " b/"; the ---/+++ and rename lines below take precedence anyway.
    match = re.match(r"diff --git a/(.*) b/(.*)$", lines[0])
    old_path, new_path = (match.group(1), match.group(2)) if match else ("", "")
    status: FileStatus = "modified"
    for line in lines[1:]:
        if line.startswith("new file mode"):
            status = "added"
        elif line.startswith("deleted file mode"):
            status = "removed"
        elif line.startswith("rename from "):
            old_path, status = line[len("rename from ") :], "renamed"
        elif line.startswith("rename to "):
            new_path = line[len("rename to ") :]
        elif line.startswith("--- ") and line != "--- /dev/null":
            old_path = _strip_prefix(line[4:])
        elif line.startswith("+++ ") and line != "+++ /dev/null":
            new_path = _strip_prefix(line[4:])
    if status == "removed":
        new_path = old_path
    return old_path, new_path, status


def _parse_file(lines: list[str]) -> FileDiff:
    first_hunk = next((i for i, line in enumerate(lines) if line.startswith("@@")), len(lines))
    old_path, new_path, status = _parse_header(lines[:first_hunk])
    body = lines[first_hunk:]
    result = FileDiff(path=new_path, old_path=old_path, status=status, patch="\n".join(body))
    old_no = new_no = 0
    for position, line in enumerate(body):
        match = _HUNK_RE.match(line)
        if match:
            old_no, new_no = int(match.group(1)), int(match.group(3))
            result.hunks.append(Hunk(header=line))
            continue
        if not result.hunks:
            continue
        hunk_index, hunk = len(result.hunks) - 1, result.hunks[-1]
        # Some tools strip the trailing space of empty context lines; git apply accepts that too.
        kind = line[:1] or " "
        old = old_no if kind in " -" else None
        new = new_no if kind in " +" else None
        hunk.lines.append(DiffLine(kind, line, old, new, position))
        where = (hunk_index, len(hunk.lines) - 1)
        if kind != "\\":
            result.positions[position] = where
        if old is not None:
            result.commentable[("LEFT", old)] = where
            old_no += 1
        if new is not None:
            result.commentable[("RIGHT", new)] = where
            new_no += 1
        result.additions += kind == "+"
        result.deletions += kind == "-"
    return result


def parse_git_diff(text: str) -> list[FileDiff]:
    """Split a `git diff` text into files; only the `diff --git` format is understood."""
    files: list[FileDiff] = []
    current: list[str] = []
    for line in text.split("\n"):
        if line.startswith("diff --git ") and current:
            files.append(_parse_file(current))
            current = []
        if line.startswith("diff --git ") or current:
            current.append(line)
    if current:
        # The split leaves one empty string after the final newline; it is not a diff line.
        if current[-1] == "":
            current.pop()
        files.append(_parse_file(current))
    return files
