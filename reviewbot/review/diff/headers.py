"""Split a git diff into per-file chunks and read each chunk's extended header (renames, copies, modes, binary)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_QUOTED = r'"(?P<q{0}>(?:[^"\\]|\\.)*)"'
_GIT_HEADER = re.compile(rf'^diff --git (?:{_QUOTED.format("a")}|(?P<a>\S+)) (?:{_QUOTED.format("b")}|(?P<b>.+))$')
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "r": "\r", "v": "\v"}


@dataclass
class ChunkHeader:
    """What a file's extended header says; `has_hunks` tells whether unidiff has anything to parse."""

    old_path: str | None = None
    new_path: str | None = None
    status: str = "modified"
    old_mode: str | None = None
    new_mode: str | None = None
    binary: bool = False
    has_hunks: bool = False


def split_chunks(text: str) -> list[str]:
    """One chunk per `diff --git` section; a plain unified diff without git headers stays one chunk."""
    starts = [m.start() for m in re.finditer(r"^diff --git ", text, re.M)]
    if not starts:
        return [text] if text.strip() else []
    bounds = [*starts, len(text)]
    head = [text[: starts[0]]] if text[: starts[0]].strip() else []
    return head + [text[bounds[i]: bounds[i + 1]] for i in range(len(starts))]


def unquote(name: str) -> str:
    """git's C-style quoting of unusual paths ("a/\\303\\251.txt"), undone; octal escapes are UTF-8 bytes."""
    out = bytearray()
    i = 0
    while i < len(name):
        ch = name[i]
        if ch == "\\" and i + 1 < len(name):
            nxt = name[i + 1]
            if nxt in "01234567" and re.match(r"[0-7]{3}", name[i + 1: i + 4]):
                out.append(int(name[i + 1: i + 4], 8))
                i += 4
                continue
            out += _ESCAPES.get(nxt, nxt).encode()
            i += 2
            continue
        out += ch.encode("utf-8", errors="surrogateescape")
        i += 1
    return out.decode("utf-8", errors="replace")


def strip_prefix(name: str) -> str | None:
    name = name.strip()
    if name.startswith('"') and name.endswith('"') and len(name) >= 2:
        name = unquote(name[1:-1])
    name = name.split("\t")[0]  # `--- a/x\t2024-01-01 ...` timestamps of non-git diffs
    if name == "/dev/null":
        return None
    return name[2:] if name[:2] in ("a/", "b/") else name


def read_header(chunk: str) -> ChunkHeader:
    """Read the lines before the first hunk; `---`/`+++` win over the `diff --git` line for paths."""
    head = ChunkHeader()
    for line in chunk.split("\n", 60)[:60]:
        if line.startswith("@@"):
            head.has_hunks = True
            break
        if m := _GIT_HEADER.match(line):
            head.old_path = strip_prefix(f'"{m["qa"]}"' if m["qa"] is not None else m["a"])
            head.new_path = strip_prefix(f'"{m["qb"]}"' if m["qb"] is not None else m["b"])
        elif line.startswith("new file mode "):
            head.status, head.new_mode = "added", line[14:].strip()
        elif line.startswith("deleted file mode "):
            head.status, head.old_mode = "removed", line[18:].strip()
        elif line.startswith("old mode "):
            head.old_mode = line[9:].strip()
        elif line.startswith("new mode "):
            head.new_mode = line[9:].strip()
        elif line.startswith(("rename from ", "copy from ")):
            head.status = "renamed" if line.startswith("rename") else "copied"
            head.old_path = strip_prefix(line.split(" ", 2)[2])
        elif line.startswith(("rename to ", "copy to ")):
            head.new_path = strip_prefix(line.split(" ", 2)[2])
        elif line.startswith(("Binary files ", "GIT binary patch")):
            head.binary = True
        elif line.startswith("--- "):
            old = strip_prefix(line[4:])
            head.old_path = old
            if old is None:
                head.status = "added"
        elif line.startswith("+++ "):
            new = strip_prefix(line[4:])
            head.new_path = new
            if new is None:
                head.status = "removed"
    if head.status == "modified" and head.old_path and head.new_path and head.old_path != head.new_path:
        head.status = "renamed"
    return head
