"""Stable finding identity: survives line shifts, so re-reviews never repeat themselves."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from reviewbot.review.diff.parse import FileDiff, Side

MARKER = re.compile(r"<!-- reviewbot:fp=([0-9a-f]{16});ck=([0-9a-f]{16}) -->")


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def normalize_code(lines: Iterable[str]) -> str:
    """Whitespace-insensitive, blank lines dropped: re-indenting or re-wrapping keeps the identity."""
    return "\n".join(" ".join(line.split()) for line in lines if line.strip())


def normalize_title(title: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", title.lower()).split())


def anchored_code(file: FileDiff | None, side: Side, start: int, end: int) -> list[str]:
    """The text of lines start..end on one side, as the diff shows them."""
    if file is None:
        return []
    wanted = range(start, end + 1)
    out: list[str] = []
    for hunk in file.hunks:
        for line in hunk.lines:
            number = line.new if side == "RIGHT" else line.old
            if number in wanted:
                out.append(line.text)
    return out


def fingerprint(path: str, category: str, code: list[str], title: str) -> str:
    """(path, category, normalised code of the anchored lines, normalised title), as the issue defines it."""
    return _digest(path, category, normalize_code(code), normalize_title(title))


def code_key(path: str, category: str, code: list[str]) -> str:
    """The same without the title: models reword titles between runs, the code they point at stays."""
    return _digest(path, category, normalize_code(code))


def marker(fp: str, ck: str) -> str:
    return f"<!-- reviewbot:fp={fp};ck={ck} -->"


def read_marker(body: str) -> tuple[str, str] | None:
    match = MARKER.search(body or "")
    return (match.group(1), match.group(2)) if match else None
