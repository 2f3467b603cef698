"""A whole-repository audit as reviews, pure: which files, in which chunks, each shown as a diff adding them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from reviewbot.audit.contextblock import Block
from reviewbot.review.context.languages import language_for
from reviewbot.review.context.snapshot import Snapshot
from reviewbot.review.context.store import git_blob_id
from reviewbot.review.diff.filters import Attributes, path_reason
from reviewbot.review.prompt.sections import CHARS_PER_TOKEN

CHUNK_TOKENS = 30_000  # of code per chunk; the numbered diff adds about a third, context fills the rest
# An audit's chunk, cut along the call graph: K2.6 reads 256k tokens, so few large chunks hold whole flows and
# read the shared prefix (and pay a verification's cached re-read of the chunk) fewer times.
AUDIT_CHUNK_TOKENS = 120_000
# Manifests and deployment files: dependency changes and unsafe defaults live there, not in code.
MANIFESTS = frozenset({"Dockerfile", "docker-compose.yml", "docker-compose.yaml", "package.json", "go.mod",
                       "pyproject.toml", "setup.py", "setup.cfg", "Gemfile", "pom.xml", "build.gradle",
                       "Cargo.toml", "composer.json", "Makefile", "nginx.conf"})
CONFIG_SUFFIXES = (".yml", ".yaml", ".toml", ".ini", ".conf", ".env.example", ".tf")
NO_NEWLINE = "\\ No newline at end of file"


@dataclass(frozen=True)
class Chunk:
    """A part of the audit: its own files; or none, and one cross-file flow's pieces (a follow-up request)."""

    index: int
    paths: tuple[str, ...]
    tokens: int
    flow: tuple[Block, ...] = ()


def auditable(paths: Sequence[str], read: Callable[[str], str | None], directory: str = "") -> list[str]:
    """Source files, manifests and configuration under `directory`; never vendored, generated, lock or binary
    files, nor anything under a hidden directory."""
    prefix = directory.strip("/") + "/" if directory.strip("/") else ""
    attributes = Attributes({p: read(p) or "" for p in paths if p == ".gitattributes"
                             or p.endswith("/.gitattributes")})
    chosen = []
    for path in paths:
        if not path.startswith(prefix):  # string operations first: a tree has thousands of paths outside
            continue
        folders, _, name = path.rpartition("/")
        if any(part.startswith(".") for part in folders.split("/")):
            continue
        wanted = language_for(path) is not None or name in MANIFESTS or name.endswith(CONFIG_SUFFIXES)
        if wanted and path_reason(path, attributes, None) is None:
            chosen.append(path)
    return sorted(chosen)


def plan_chunks(sizes: Mapping[str, int], budget_tokens: int = CHUNK_TOKENS,
                chars_per_token: float = CHARS_PER_TOKEN) -> list[Chunk]:
    """Files in path order (neighbours share a chunk, and so context), packed up to the budget; a file over
    the budget gets a chunk of its own (the review says which part it saw)."""
    chunks: list[Chunk] = []
    current: list[str] = []
    used = 0
    for path in sorted(sizes):
        tokens = max(1, int(sizes[path] / chars_per_token))
        if current and used + tokens > budget_tokens:
            chunks.append(Chunk(len(chunks), tuple(current), used))
            current, used = [], 0
        current.append(path)
        used += tokens
    if current:
        chunks.append(Chunk(len(chunks), tuple(current), used))
    return chunks


def added_diff(files: Mapping[str, str]) -> str:
    """A git diff that adds every file: the review then shows, and can comment on, every line."""
    parts = []
    for path in sorted(files):
        text = files[path]
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
            ending = []
        else:
            ending = [NO_NEWLINE]
        header = f"diff --git a/{path} b/{path}\nnew file mode 100644\n"
        if not lines:
            parts.append(header)
            continue
        body = "\n".join(["--- /dev/null", f"+++ b/{path}", f"@@ -0,0 +1,{len(lines)} @@",
                          *(f"+{line}" for line in lines), *ending])
        parts.append(header + body + "\n")
    return "".join(parts)


class Without:
    """A snapshot minus some files: a chunk's own files are in its diff, not repeated as context."""

    def __init__(self, snapshot: Snapshot, hidden: Sequence[str]) -> None:
        self._snapshot = snapshot
        self._hidden = frozenset(hidden)
        self._paths = [p for p in snapshot.paths() if p not in self._hidden]

    def paths(self) -> Sequence[str]:
        return self._paths

    def read(self, path: str) -> str | None:
        return None if path in self._hidden else self._snapshot.read(path)


class Listed:
    """Only the listed files of a directory on disk (git's tracked files, or a filtered walk)."""

    def __init__(self, snapshot: Snapshot, paths: Sequence[str]) -> None:
        self._snapshot = snapshot
        self._paths = sorted(paths)
        self._blobs: dict[str, str] | None = None

    def paths(self) -> Sequence[str]:
        return self._paths

    def read(self, path: str) -> str | None:
        return self._snapshot.read(path)

    def blob_ids(self) -> Mapping[str, str]:
        """path -> blob id of the text as read (as the facts cache keys it), listed files only, hashed once: the
        verifier's index then asks the per-blob stores instead of scanning every file (a work tree's edits
        are content of their own, never confused with the index's)."""
        if self._blobs is None:
            self._blobs = {p: git_blob_id(t.encode("utf-8", errors="replace")) for p in self._paths
                           if (t := self._snapshot.read(p)) is not None}
        return self._blobs

    def read_many(self, paths: Sequence[str]) -> Iterator[tuple[str, str | None]]:
        return ((p, self._snapshot.read(p)) for p in paths)
