"""`search_code`'s path filter: gitignore-style globs matched segment by segment, in time linear in the path.

pathspec compiles a glob into one backtracking regular expression: a 43-character glob of stars took seconds per
file. Here each path segment is matched with fnmatch (whose translation uses atomic groups) and `**` by a table
over segments, so the cost is bounded by (glob segments × path segments) short matches."""

from __future__ import annotations

import fnmatch
from functools import cache

from reviewbot.review.prompt.tooldefs import MAX_GLOB

MAX_STARS = 8


class GlobError(ValueError):
    """A glob the tool refuses; the message is for the model."""


def compile_glob(glob: str) -> tuple[str, ...]:
    """The glob's segments, `**` included; pattern without a slash matches at any depth, as in .gitignore."""
    if len(glob) > MAX_GLOB or "\n" in glob or "\0" in glob:
        raise GlobError(f"path_glob must be one line of at most {MAX_GLOB} characters")
    if glob.count("*") > MAX_STARS:
        raise GlobError(f"path_glob may use at most {MAX_STARS} `*`")
    body = glob.strip().rstrip("/")
    anchored = "/" in body
    segments = tuple(s for s in body.lstrip("/").split("/") if s not in ("", "."))
    if not segments:
        raise GlobError("path_glob is empty")
    return segments if anchored else ("**", *segments)


def glob_matches(segments: tuple[str, ...], path: str) -> bool:
    """True when the path, or a folder it is in, matches (a matched folder covers everything below it)."""
    parts = tuple(path.split("/"))
    return any(_match(segments, parts[:end]) for end in range(1, len(parts) + 1))


def _match(glob: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    @cache
    def at(g: int, p: int) -> bool:
        if g == len(glob):
            return p == len(parts)
        if glob[g] == "**":
            return at(g + 1, p) or (p < len(parts) and at(g, p + 1))
        return p < len(parts) and fnmatch.fnmatchcase(parts[p], glob[g]) and at(g + 1, p + 1)

    return at(0, 0)
