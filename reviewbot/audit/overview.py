"""The repository overview every chunk of an audit shares, pure: languages, entry points, authentication and
data-access modules, manifests and the most-called modules. Built once per audit; the same inputs give the same
bytes (the prefix cache relies on it)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from reviewbot.audit.callgraph import CallGraph
from reviewbot.audit.chunks import CONFIG_SUFFIXES, MANIFESTS
from reviewbot.review.context.index import is_test
from reviewbot.review.context.languages import language_for
from reviewbot.review.context.symbols import Definition

OVERVIEW_HEADER = "## Repository overview (built once for this audit)"
MAX_LISTED = 80  # files per heading
MAX_OUTLINE = 5  # definitions outlined per file: the prefix every request reads (cached, still billed)
MAX_SIGNATURE = 120
OUTLINED = frozenset({"function", "method", "class"})
MAX_CENTRAL = 25
# Path words that mark where input enters, who may do what, and where data is stored: matched against the
# path's folders and file stem, split on `_`, `-` and `.`.
ENTRY_WORDS = frozenset({"urls", "urlpatterns", "routes", "router", "routing", "views", "view", "handlers",
                         "handler", "controllers", "controller", "api", "endpoints", "commands", "cli",
                         "__main__", "main", "server", "app", "wsgi", "asgi", "middleware", "webhooks"})
AUTH_WORDS = frozenset({"auth", "authentication", "authorization", "login", "logout", "session", "sessions",
                        "permission", "permissions", "perms", "csrf", "token", "tokens", "password", "passwords",
                        "hashers", "signing", "crypto", "security", "oauth", "jwt", "acl", "backends", "decorators"})
DATA_WORDS = frozenset({"db", "database", "models", "model", "sql", "query", "queries", "orm", "repository",
                        "repositories", "dao", "storage", "store", "cache", "compiler", "cursor", "serializers"})
_SPLIT = re.compile(r"[_.\-]")


def words(path: str) -> set[str]:
    folders, _, name = path.strip("/").rpartition("/")  # string operations: this runs for every file of the tree
    parts = [*(folders.split("/") if folders else ()), name.split(".", 1)[0]]
    return {w.lower() for part in parts for w in [part, *_SPLIT.split(part)]}


def build_overview(paths: Sequence[str], sizes: Mapping[str, int], definitions: Mapping[str, Sequence[Definition]],
                   graph: CallGraph) -> str:
    code = [p for p in sorted(paths) if language_for(p) is not None]
    languages = Counter(language_for(p) or "" for p in code)
    chars = Counter[str]()
    for p in code:
        chars[language_for(p) or ""] += sizes.get(p, 0)
    lines = [OVERVIEW_HEADER, "", "Untrusted input usually enters at the entry points below and reaches its sink "
             "in the data-access or system modules, often far away in path order: follow it across files.", "",
             "### Languages", ""]
    lines += [f"- {lang}: {n} file(s), about {chars[lang] // 4:,} tokens" for lang, n in
              sorted(languages.items(), key=lambda kv: (-kv[1], kv[0]))]
    source = [p for p in code if not is_test(p)]
    said = {p: words(p) for p in source}
    lines += _section("Entry points (routes, views, handlers, CLI commands) and what they define",
                      [p for p in source if said[p] & ENTRY_WORDS], definitions)
    lines += _section("Authentication, sessions, permissions and cryptography",
                      [p for p in source if said[p] & AUTH_WORDS], definitions)
    lines += _section("Data access (databases, queries, storage)", [p for p in source if said[p] & DATA_WORDS],
                      definitions)
    central = sorted(((len(graph.callers.get(p, ())), p) for p in source), key=lambda x: (-x[0], x[1]))
    lines += ["", "### Most-called modules (files calling into them)", ""]
    lines += [f"- `{p}` ({n})" for n, p in central[:MAX_CENTRAL] if n]
    manifests = [p for p in sorted(paths) if p.rpartition("/")[2] in MANIFESTS or p.endswith(CONFIG_SUFFIXES)]
    lines += ["", "### Manifests and configuration", ""]
    lines += [f"- `{p}`" for p in manifests[:MAX_LISTED]] or ["- (none)"]
    if len(manifests) > MAX_LISTED:
        lines.append(f"- … and {len(manifests) - MAX_LISTED} more")
    return "\n".join(lines) + "\n"


def _section(title: str, files: list[str], definitions: Mapping[str, Sequence[Definition]]) -> list[str]:
    """Each file with an outline of what it defines (line: signature): where input enters and what guards it,
    so a chunk can follow a value into files it does not hold."""
    out = ["", f"### {title}", ""]
    for path in files[:MAX_LISTED]:
        out.append(f"- `{path}`")
        defs = [d for d in definitions.get(path, ()) if d.kind in OUTLINED and not d.name.startswith("_")
                and (d.parent is None or d.kind == "method")]
        out += [f"  - {d.start}: {d.signature[:MAX_SIGNATURE]}" for d in defs[:MAX_OUTLINE]]
        if len(defs) > MAX_OUTLINE:
            out.append(f"  - … and {len(defs) - MAX_OUTLINE} more")
    if len(files) > MAX_LISTED:
        out.append(f"- … and {len(files) - MAX_LISTED} more")
    return out if files else [*out, "- (none found by name)"]
