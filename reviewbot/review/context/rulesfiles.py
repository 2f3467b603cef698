"""The rules files teams write for coding agents (AGENTS.md, CLAUDE.md, Cursor, Copilot, Gemini), found and parsed."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from reviewbot.review.context.snapshot import Snapshot

# nearest: the AGENTS.md closest above a file applies (agents.md); tree: every one above it applies (Claude Code's
# and Gemini CLI's hierarchy); all: repository-wide; globs: files matching its globs; none: never applied.
Scope = Literal["nearest", "tree", "all", "globs", "none"]
NESTED = {"AGENTS.md": "nearest", "CLAUDE.md": "tree", "GEMINI.md": "tree"}
ROOT_FILES = (".claude/CLAUDE.md", ".gemini/styleguide.md", ".cursorrules", ".github/copilot-instructions.md",
              "CONTRIBUTING.md", ".github/CONTRIBUTING.md", "docs/CONTRIBUTING.md", "REVIEWING.md")
CURSOR_DIR = ".cursor/rules/"
COPILOT_DIR = ".github/instructions/"
KNOWN_ENDINGS = (".mdc", ".instructions.md", *NESTED)
SKIPPED_DIRS = {"node_modules", "vendor", "third_party", ".venv", "venv", ".git"}
MAX_CANDIDATES = 400  # a monorepo's hundreds of nested files: only those nearest the changed files are read


@dataclass(frozen=True)
class RulesFile:
    path: str
    text: str  # without front matter
    scope: Scope
    globs: tuple[str, ...] = ()
    why_not: str = ""  # for scope "none": why the tool it was written for would not apply it here either
    note: str = ""  # e.g. front matter that is not valid YAML

    @property
    def directory(self) -> str:
        return "" if self.path.startswith(".claude/") else posixpath.dirname(self.path)


def known(path: str) -> bool:
    """A path one of the agents' conventions reads (nested files anywhere outside vendored trees)."""
    if path in ROOT_FILES:
        return True
    if not path.endswith(KNOWN_ENDINGS):  # the common case, answered without splitting the path
        return False
    if path.startswith(CURSOR_DIR):
        return path.endswith(".mdc")
    if path.startswith(COPILOT_DIR):
        return path.endswith(".instructions.md")
    parts = path.split("/")
    return parts[-1] in NESTED and not SKIPPED_DIRS.intersection(parts[:-1])


def candidates(snapshot: Snapshot, listed: Sequence[str] | None = None, changed: Sequence[str] = ()) -> list[str]:
    """The rules files of the base tree near the change; `listed` (the configuration's list) replaces discovery."""
    present = snapshot.paths()
    if listed is not None:
        wanted = set(listed)
        return [p for p in present if p in wanted]
    return near(present, changed)[:MAX_CANDIDATES]


def near(paths: Sequence[str], changed: Sequence[str]) -> list[str]:
    """The rules files among `paths` worth reading for a change: every root-level or front-matter one, and nested
    AGENTS.md / CLAUDE.md / GEMINI.md only in a directory above a changed file."""
    above = {""}
    for path in changed:
        parts = path.split("/")[:-1]
        above.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    # The endswith test first: a 100,000-file tree is scanned without a call per path.
    found = [p for p in paths if (p.endswith(KNOWN_ENDINGS) or p in ROOT_FILES) and known(p)]
    return [p for p in found if p.rsplit("/", 1)[-1] not in NESTED or posixpath.dirname(p) in above
            or p in ROOT_FILES]


def parse(path: str, raw: str) -> RulesFile:
    """One file with its scope, from its name and (Cursor, Copilot) its front matter."""
    name = path.rsplit("/", 1)[-1]
    if path.startswith(CURSOR_DIR) and path.endswith(".mdc"):
        meta, body, note = front_matter(raw)
        return _cursor(path, meta, body, note)
    if path.startswith(COPILOT_DIR) and path.endswith(".instructions.md"):
        meta, body, note = front_matter(raw)
        return _copilot(path, meta, body, note)
    if name in NESTED and path not in ROOT_FILES:
        return RulesFile(path, raw, "nearest" if NESTED[name] == "nearest" else "tree")
    return RulesFile(path, raw, "all")  # root files, and any file the configuration lists by name


def _cursor(path: str, meta: dict[str, Any], body: str, note: str) -> RulesFile:
    if str(meta.get("alwaysApply")).lower() == "true":  # a bool from YAML, a word from the line-by-line read
        return RulesFile(path, body, "all", note=note)
    globs = _globs(meta.get("globs"))
    if globs:
        return RulesFile(path, body, "globs", globs, note=note)
    why = ("Cursor applies it only when an agent asks for it by its description" if _text(meta.get("description"))
           else "Cursor applies it only when someone mentions it")
    return RulesFile(path, body, "none", why_not=why, note=note)


def _copilot(path: str, meta: dict[str, Any], body: str, note: str) -> RulesFile:
    excluded = _globs(meta.get("excludeAgent"))
    if "code-review" in excluded:
        return RulesFile(path, body, "none", why_not="its excludeAgent keeps it out of code review", note=note)
    globs = _globs(meta.get("applyTo"))
    if not globs:
        return RulesFile(path, body, "none", why_not="it has no applyTo globs", note=note)
    return RulesFile(path, body, "globs", globs, note=note)


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _globs(value: object) -> tuple[str, ...]:
    """`"a, b"` (Copilot, Cursor) or a YAML list of globs."""
    items = value if isinstance(value, list) else [value]
    globs = (g.strip().strip("\"'").strip() for item in items if isinstance(item, str) for g in item.split(","))
    return tuple(g for g in globs if g)


def front_matter(raw: str) -> tuple[dict[str, Any], str, str]:
    """(front matter, body, note). PyYAML first; Cursor writes `globs: *.ts` unquoted, which YAML reads as an
    alias and refuses, so a block YAML refuses is read the way Cursor does: one `key: value` per line."""
    lines = raw.lstrip("\ufeff").split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, raw, ""
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return {}, raw, "front matter is not closed: read as text"
    block, body = "\n".join(lines[1:end]), "\n".join(lines[end + 1:]).strip("\n")
    import yaml  # only a rules file with front matter needs the YAML parser

    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError:
        pairs = (line.partition(":") for line in block.split("\n") if ":" in line and not line.startswith(" "))
        meta = {k.strip(): v.strip().strip("\"'") for k, _, v in pairs}
        return meta, body, "front matter read line by line (not valid YAML)"
    return (data if isinstance(data, dict) else {}), body, ""
