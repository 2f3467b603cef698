"""Read-only repository tools for the model (read_file, search_code, list_files), confined to one cached tree."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path, PurePosixPath
from typing import Any

from reviewbot.inference.pathglob import GlobError, compile_glob, glob_matches
from reviewbot.review.prompt.tooldefs import (
    MAX_LINE_NUMBER,
    MAX_MATCHES,
    MAX_PATH,
    MAX_PATTERN,
    MAX_READ_LINES,
    TOOL_DEFINITIONS_JSON,
    tool_definitions,
)

__all__ = ["TOOL_DEFINITIONS_JSON", "RepoTools", "ToolError", "tool_definitions"]
MAX_ANSWER_CHARS = 30_000
MAX_LISTED = 500
MAX_FILE_BYTES = 1_000_000
MAX_SCANNED_BYTES = 64_000_000

class ToolError(Exception):
    """A request the tools refuse; its message goes back to the model as the tool's answer."""


class RepoTools:
    """Answers tool calls from one extracted tree; nothing outside `root` is ever opened."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def definitions(self) -> list[dict[str, Any]]:
        """The OpenAI tool definitions, the same bytes for every turn and review (prefix cache)."""
        return tool_definitions()

    async def call(self, name: str, arguments: str) -> str:
        return await self.run_async(name, arguments)

    async def run_async(self, name: str, arguments: str | dict[str, Any]) -> str:
        return await asyncio.to_thread(self.run, name, arguments)

    def run(self, name: str, arguments: str | dict[str, Any]) -> str:
        """Execute one call; bad arguments and refusals come back as text for the model, never as exceptions."""
        try:
            args = json.loads(arguments) if isinstance(arguments, str) else arguments
            if not isinstance(args, dict):
                raise ToolError("arguments must be a JSON object")
            if name == "read_file":
                return self.read_file(_text(args, "path"), _line(args, "start_line"), _line(args, "end_line"))
            if name == "search_code":
                glob = args.get("path_glob")
                if glob is not None and not isinstance(glob, str):
                    raise ToolError("`path_glob` must be a string")
                return self.search_code(_text(args, "pattern"), glob or None)
            if name == "list_files":
                return self.list_files(_text(args, "directory", allow_empty=True))
            raise ToolError(f"unknown tool {name!r}")
        except ToolError as exc:
            return f"error: {exc}"
        except ValueError:
            return "error: arguments are not valid JSON"

    def resolve(self, path: str) -> Path:
        return self.root.joinpath(*self._parts(path))

    def _parts(self, path: str) -> list[str]:
        """The file or folder `path` names inside the tree; refuses absolute paths, `..` and symbolic links."""
        if "\0" in path or path.startswith(("/", "\\", "~")) or (len(path) > 1 and path[1] == ":"):
            raise ToolError("paths are relative to the repository root")
        parts = [p for p in PurePosixPath(path.replace("\\", "/")).parts if p not in ("", ".")]
        if ".." in parts:
            raise ToolError("paths may not contain '..'")
        target = self.root
        for part in parts:
            target = target / part
            if target.is_symlink():
                raise ToolError(f"{path} goes through a symbolic link, which is not followed")
        if os.path.commonpath([self.root, target.resolve()]) != str(self.root):
            raise ToolError("that path is outside the repository")
        return parts

    def read_file(self, path: str, start: int | None = None, end: int | None = None) -> str:
        parts = self._parts(path)
        target, path = self.root.joinpath(*parts), "/".join(parts)
        if not target.is_file():
            raise ToolError(f"no file {path!r} (list_files shows what exists)")
        if target.stat().st_size > MAX_FILE_BYTES:
            raise ToolError(f"{path} is over {MAX_FILE_BYTES // 1_000_000} MB; search_code finds lines in it")
        data = target.read_bytes()
        if b"\0" in data[:8000]:
            raise ToolError(f"{path} is a binary file")
        lines = data.decode("utf-8", errors="replace").split("\n")
        if len(lines) > 1 and lines[-1] == "":
            lines.pop()  # the newline that ends the last line does not start another
        first = max(1, start or 1)
        last = min(len(lines), end or len(lines), first + MAX_READ_LINES - 1)
        if first > len(lines):
            raise ToolError(f"{path} has only {len(lines)} lines")
        body = "\n".join(f"{n:>5}  {lines[n - 1]}" for n in range(first, last + 1))
        more = f"\n(lines {last + 1}-{len(lines)} not shown; ask for them)" if last < len(lines) else ""
        return _cap(f"{path} lines {first}-{last} of {len(lines)}:\n{body}{more}")

    def search_code(self, pattern: str, path_glob: str | None = None) -> str:
        if not pattern or len(pattern) > MAX_PATTERN or "\n" in pattern:
            raise ToolError(f"pattern must be one line of 1 to {MAX_PATTERN} characters")
        try:
            spec = compile_glob(path_glob) if path_glob else None
        except GlobError as exc:
            raise ToolError(str(exc)) from None
        needle = pattern.encode()
        matches: list[str] = []
        scanned = 0
        for rel, full in self._files():
            if spec is not None and not glob_matches(spec, rel):
                continue
            size = full.stat().st_size
            if size > MAX_FILE_BYTES or scanned > MAX_SCANNED_BYTES:
                continue
            scanned += size
            data = full.read_bytes()
            if needle not in data or b"\0" in data[:8000]:
                continue
            for number, line in enumerate(data.split(b"\n"), start=1):
                if needle in line:
                    matches.append(f"{rel}:{number}: {line.decode('utf-8', errors='replace').strip()[:200]}")
                    if len(matches) >= MAX_MATCHES:
                        return _cap("\n".join(matches) + f"\n(stopped at {MAX_MATCHES} matches)")
        return _cap("\n".join(matches)) if matches else f"no lines contain {pattern!r}"

    def list_files(self, directory: str) -> str:
        target = self.resolve(directory)
        if not target.is_dir():
            raise ToolError(f"no folder {directory!r}")
        names = sorted(e.name + ("/" if e.is_dir() and not e.is_symlink() else "")
                       for e in os.scandir(target) if e.name != ".git")
        shown = names[:MAX_LISTED]
        more = f"\n(and {len(names) - MAX_LISTED} more)" if len(names) > MAX_LISTED else ""
        return _cap("\n".join(shown) + more) if shown else "(empty folder)"

    def _files(self) -> list[tuple[str, Path]]:
        out: list[tuple[str, Path]] = []
        for folder, dirs, files in os.walk(self.root):  # os.walk does not follow symbolic links to folders
            dirs[:] = sorted(d for d in dirs if d != ".git")
            rel = os.path.relpath(folder, self.root)
            prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
            out += [(prefix + f, Path(folder, f)) for f in sorted(files) if not Path(folder, f).is_symlink()]
        return out


def _text(args: dict[str, Any], key: str, *, allow_empty: bool = False) -> str:
    value = args.get(key, "" if allow_empty else None)
    if not isinstance(value, str) or (not value and not allow_empty):
        raise ToolError(f"`{key}` must be a non-empty string")
    if len(value) > MAX_PATH:  # the pattern has its own, smaller cap
        raise ToolError(f"`{key}` may be at most {MAX_PATH} characters")
    return value


def _line(args: dict[str, Any], key: str) -> int | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LINE_NUMBER:
        raise ToolError(f"`{key}` must be an integer from 1 to {MAX_LINE_NUMBER:,}")
    return value


def _cap(text: str) -> str:
    return text if len(text) <= MAX_ANSWER_CHARS else text[:MAX_ANSWER_CHARS] + "\n(answer truncated)"
