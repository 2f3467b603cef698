"""Stable finding identity: survives line shifts, so re-reviews never repeat themselves. The hidden markers that
carry it are authenticated and read only from the bot's own trailer, so text the model echoes cannot forge one."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Iterable
from typing import Any

from reviewbot.review.diff.parse import FileDiff, Side

MARKER = re.compile(r"<!-- reviewbot:fp=([0-9a-f]{16});ck=([0-9a-f]{16});mac=([0-9a-f]{32}) -->")
# kind (review, refused), JSON payload, MAC over both: one marker shape for every signed record in a reply
SIGNED_MARKER = re.compile(r"<!-- reviewbot:([a-z][a-z-]*) (\{.*\}) mac=([0-9a-f]{32}) -->")


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


def fix_seal(fingerprints: Iterable[str], repo: str, key: bytes) -> str:
    """A fix commit's `Reviewbot-Seal:` trailer: only the App, which holds the key, can write one that later
    reviews and outcomes believe (anyone can type a `Reviewbot-Fix:` line into a commit)."""
    return _mac(key, "fix", f"{repo.lower()};{','.join(sorted(set(fingerprints)))}")


def _mac(key: bytes, what: str, payload: str) -> str:
    return hmac.new(key, f"{what}\x1f{payload}".encode(), hashlib.sha256).hexdigest()[:32]


def _trailer(body: str | None) -> str:
    """The last line: where the bot appends its marker, after everything the model's text can produce."""
    lines = (body or "").rstrip().splitlines()
    return lines[-1] if lines else ""


def marker(fp: str, ck: str, key: bytes) -> str:
    return f"<!-- reviewbot:fp={fp};ck={ck};mac={_mac(key, 'finding', f'{fp};{ck}')} -->"


def read_marker(body: str | None, key: bytes) -> tuple[str, str] | None:
    """A comment's fingerprint and code key, only from an authenticated marker on its last line."""
    match = MARKER.fullmatch(_trailer(body))
    if not match or not hmac.compare_digest(match.group(3), _mac(key, "finding", f"{match[1]};{match[2]}")):
        return None
    return match.group(1), match.group(2)


def signed_marker(kind: str, data: dict[str, Any], key: bytes) -> str:
    payload = json.dumps(data, sort_keys=True, separators=(",", ":")).replace("--", "-\\u002d")
    return f"<!-- reviewbot:{kind} {payload} mac={_mac(key, kind, payload)} -->"


def read_signed_marker(kind: str, body: str | None, key: bytes) -> dict[str, Any] | None:
    """The payload of a marker of this kind, only when authenticated and on the body's last line."""
    match = SIGNED_MARKER.fullmatch(_trailer(body))
    if not match or match.group(1) != kind or not hmac.compare_digest(match.group(3),
                                                                      _mac(key, kind, match.group(2))):
        return None
    try:
        data = json.loads(match.group(2))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def review_marker(data: dict[str, Any], key: bytes) -> str:
    return signed_marker("review", data, key)


def read_review_marker(body: str | None, key: bytes) -> dict[str, Any] | None:
    """A review's {sha, run, fps}, only from an authenticated marker on its last line."""
    return read_signed_marker("review", body, key)
