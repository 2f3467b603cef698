"""Where a file calls a name: its first calling line, so a caller left out of the prompt is still findable."""

from __future__ import annotations

from collections.abc import Iterator

MAX_LINE_CHARS = 120  # the calling line is quoted in the coverage list: enough to recognise, never a whole blob


def whole_words(text: str, name: str) -> Iterator[int]:
    """Where `name` stands as a whole word (str.find: a regex with \\b cannot skip ahead by its literal)."""
    start = 0
    while (i := text.find(name, start)) != -1:
        start = i + len(name)
        before = text[i - 1] if i else " "
        after = text[start] if start < len(text) else " "
        if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
            yield i


def first_call(text: str, name: str) -> tuple[int, str] | None:
    """(1-based line, stripped line) of the first `name(` (spaces allowed before the parenthesis), else of the
    first mention: an import or a reference is still where a reader starts."""
    mention: int | None = None
    for at in whole_words(text, name):
        mention = at if mention is None else mention
        if text[at + len(name):at + len(name) + 40].lstrip(" \t").startswith("("):
            return _line(text, at)
    return _line(text, mention) if mention is not None else None


def _line(text: str, at: int) -> tuple[int, str]:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start:end if end != -1 else len(text)].strip()
    if len(line) > MAX_LINE_CHARS:
        line = line[:MAX_LINE_CHARS - 1] + "…"
    return text.count("\n", 0, at) + 1, line
