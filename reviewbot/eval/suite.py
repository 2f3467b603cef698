"""A suite on disk: one directory per case with base/ and head/ trees (or base/ and change.patch), expected.json,
and optionally recorded.json (the answers `--model fake` replays)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reviewbot.app.bigdiff import diff_from_files
from reviewbot.errors import ConfigError
from reviewbot.review.diff.parse import ParsedDiff, parse_diff

MAX_CASE_FILE_BYTES = 1_000_000


@dataclass(frozen=True)
class Expected:
    """A finding the case's author says a good review reports: a file, a line range and the categories that count."""

    path: str
    start: int
    end: int
    categories: tuple[str, ...]
    side: str = "RIGHT"
    why: str = ""


@dataclass(frozen=True)
class Case:
    name: str
    root: Path
    language: str
    title: str
    description: str
    base: dict[str, str]
    diff: ParsedDiff
    expected: tuple[Expected, ...]
    clean: bool
    config: dict[str, Any] = field(default_factory=dict)  # .github/reviewbot.yml keys for this case
    recorded: dict[str, Any] | None = None


def load_suite(directory: Path, only: list[str] | None = None) -> list[Case]:
    if not directory.is_dir():
        raise ConfigError(f"--suite {directory} is not a directory")
    cases = [load_case(d) for d in sorted(directory.iterdir()) if (d / "expected.json").is_file()
             and (not only or d.name in only)]
    if not cases:
        raise ConfigError(f"no cases (directories with an expected.json) in {directory}")
    return cases


def load_case(root: Path) -> Case:
    try:
        spec = json.loads((root / "expected.json").read_text())
        recorded = json.loads((root / "recorded.json").read_text()) if (root / "recorded.json").is_file() else None
    except ValueError as exc:
        raise ConfigError(f"{root.name}: invalid JSON ({exc})") from None
    base = _tree(root / "base")
    if (root / "change.patch").is_file():
        diff_text = (root / "change.patch").read_text()
    else:
        head = _tree(root / "head")
        changed = sorted(p for p in set(base) | set(head) if base.get(p) != head.get(p))
        items = [{"filename": p, "status": "added" if p not in base else "removed" if p not in head
                  else "modified"} for p in changed]
        diff_text, _ = diff_from_files(items, {p: (base.get(p), head.get(p)) for p in changed})
    expected = tuple(Expected(path=e["path"], start=int(e.get("start_line") or e["line"]), end=int(e["line"]),
                              categories=tuple(e["category"] if isinstance(e["category"], list) else [e["category"]]),
                              side=e.get("side", "RIGHT"), why=e.get("why", ""))
                     for e in spec.get("findings", []))
    clean = bool(spec.get("clean", not expected))
    if clean and expected:
        raise ConfigError(f"{root.name}: a clean case cannot expect findings")
    return Case(name=root.name, root=root, language=str(spec.get("language", "")), title=str(spec.get("title", "")),
                description=str(spec.get("description", "")), base=base, diff=parse_diff(diff_text),
                expected=expected, clean=clean, config=dict(spec.get("config") or {}), recorded=recorded)


def _tree(root: Path) -> dict[str, str]:
    if not root.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*"))
            if p.is_file() and p.stat().st_size <= MAX_CASE_FILE_BYTES}
