"""Symbols with tree-sitter: what a file defines (with line ranges and signatures) and which names lines use."""

from __future__ import annotations

import hashlib
import re
import threading
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache, cached_property

from tree_sitter import Node, Parser, Query, QueryCursor, Tree
from tree_sitter_language_pack import get_language, get_parser

from reviewbot.review.context.languages import DEFINITION_QUERIES, IDENTIFIER_KINDS, SCOPE_KINDS, language_for

MAX_PARSE_BYTES = 2_000_000  # bigger files get the plain-text fallback: parsing them costs more than they give
MAX_SIGNATURE_CHARS = 400
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FALLBACK_DEF = re.compile(
    r"^[ \t]*(?:export\s+|pub\s+|public\s+|private\s+|static\s+|async\s+)*"
    r"(def|class|function|func|fn|struct|interface|trait|enum|module|type|const)\s+([A-Za-z_]\w*)", re.M)


@dataclass(frozen=True, slots=True)
class Definition:
    """A named definition: lines are 1-based and inclusive; `signature` is its header up to the body."""

    name: str
    kind: str
    start: int
    end: int
    signature: str
    parent: str | None = None


@dataclass(frozen=True)
class Parsed:
    """A file read once: its definitions and, when a grammar exists, the syntax tree for name lookups."""

    language: str | None
    definitions: tuple[Definition, ...]
    tree: Tree | None
    data: bytes

    def enclosing(self, line: int) -> Definition | None:
        """The innermost definition whose lines hold `line`: definitions nest, so it is the nearest one before
        the line that still covers it (the walk back is bounded for files of thousands of definitions)."""
        i = bisect_right(self._starts, line)
        for d in reversed(self.definitions[max(0, i - 2_000):i]):
            if d.end >= line:
                return d
        return None

    @cached_property
    def _starts(self) -> list[int]:
        return [d.start for d in self.definitions]


_local = threading.local()  # parsers are not thread-safe; plans are built in worker threads


def thread_parser(language: str) -> Parser:
    """This thread's parser for `language` (one per thread: parsers are not thread-safe)."""
    parsers: dict[str, Parser] = _local.__dict__.setdefault("parsers", {})
    if language not in parsers:
        parsers[language] = get_parser(language)  # type: ignore[arg-type]
    return parsers[language]


@cache
def _queries(language: str) -> tuple[Query, Query]:
    lang = get_language(language)  # type: ignore[arg-type]
    kinds = [k for k in IDENTIFIER_KINDS if lang.id_for_node_kind(k, True)]
    idents = "[" + " ".join(f"({k})" for k in kinds) + "] @id"
    return Query(lang, DEFINITION_QUERIES[language]), Query(lang, idents)


def parse(path: str, text: str) -> Parsed:
    """Definitions of a file; a file without grammar (or too big) gets regex-found definitions."""
    language = language_for(path)
    data = text.encode("utf-8", errors="replace")
    if language is None or len(data) > MAX_PARSE_BYTES:
        return Parsed(None, _fallback_definitions(text), None, data)
    tree = thread_parser(language).parse(data)
    return Parsed(language, _definitions(language, tree, data), tree, data)


def _definitions(language: str, tree: Tree, data: bytes) -> tuple[Definition, ...]:
    found: list[tuple[int, int, int, int, str, str, str]] = []
    for _, captures in QueryCursor(_queries(language)[0]).matches(tree.root_node):
        names = captures.get("name")
        kind, nodes = next(((k, v) for k, v in captures.items() if k != "name"), ("", []))
        if not names or not nodes:
            continue
        node = nodes[0]
        if kind in ("variable", "constant") and _inside_function(node):
            continue  # locals are not part of any interface
        name = data[names[0].start_byte:names[0].end_byte].decode("utf-8", errors="replace")
        if kind == "variable" and name.isupper():
            kind = "constant"
        end = node.end_point.row + (0 if node.end_point.column == 0 and node.end_point.row > node.start_point.row
                                    else 1)
        found.append((node.start_byte, node.end_byte, node.start_point.row + 1, end, name, kind,
                      _signature(node, data)))
    return _nest(found)


def _inside_function(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in ("function_definition", "function_declaration", "method_definition", "function_item",
                           "method_declaration", "method", "arrow_function", "lambda", "block_statement"):
            return True
        parent = parent.parent
    return False


def _signature(node: Node, data: bytes) -> str:
    """The definition's header: its text up to the body (whole text for constants), whitespace-normalised.

    A longer header keeps its start and a digest of the whole: a parameter added at the end of a long
    signature (keyword-only arguments, overloads of many parameters) still changes it."""
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else min(node.end_byte, node.start_byte + MAX_SIGNATURE_CHARS)
    header = " ".join(data[node.start_byte:end].decode("utf-8", errors="replace").split())
    if len(header) <= MAX_SIGNATURE_CHARS:
        return header
    digest = hashlib.blake2b(header.encode(), digest_size=6).hexdigest()
    return f"{header[:MAX_SIGNATURE_CHARS - 16]} … #{digest}"


def _nest(found: list[tuple[int, int, int, int, str, str, str]]) -> tuple[Definition, ...]:
    """Definitions in source order, each with the name of the definition that encloses it (by byte range)."""
    found.sort(key=lambda f: (f[0], -f[1]))
    stack: list[tuple[int, str, str]] = []  # (end byte, name, kind)
    out: list[Definition] = []
    for start_byte, end_byte, start, end, name, kind, signature in found:
        while stack and stack[-1][0] <= start_byte:
            stack.pop()
        parent = stack[-1] if stack else None
        if kind == "function" and parent is not None and parent[2] in ("class", "type", "impl"):
            kind = "method"
        if parent is not None and parent[2] in SCOPE_KINDS and kind in ("variable", "constant"):
            continue
        out.append(Definition(name, kind, start, end, signature, parent[1] if parent else None))
        stack.append((end_byte, name, kind))
    return tuple(out)


def _fallback_definitions(text: str) -> tuple[Definition, ...]:
    starts = [(text.count("\n", 0, m.start()) + 1, m.group(2), m.group(1), m.group(0).strip())
              for m in _FALLBACK_DEF.finditer(text)]
    total = text.count("\n") + 1
    out = []
    for i, (line, name, word, header) in enumerate(starts):
        end = starts[i + 1][0] - 1 if i + 1 < len(starts) else total
        kind = "class" if word in ("class", "struct", "interface", "trait", "enum", "type") else "function"
        out.append(Definition(name, "constant" if word == "const" else kind, line, max(line, end), header))
    return tuple(out)


def names_on_lines(parsed: Parsed, lines: set[int]) -> dict[str, bool]:
    """Names used on the given 1-based lines, each mapped to whether it is called there (`name(`)."""
    if not lines:
        return {}
    if parsed.tree is None or parsed.language is None:
        return _fallback_names(parsed.data, lines)
    cursor = QueryCursor(_queries(parsed.language)[1])
    cursor.set_point_range((min(lines) - 1, 0), (max(lines), 0))
    data = parsed.data
    out: dict[str, bool] = {}
    for node in cursor.captures(parsed.tree.root_node).get("id", []):
        if node.start_point.row + 1 not in lines:
            continue
        name = data[node.start_byte:node.end_byte].decode("utf-8", errors="replace")
        after = data[node.end_byte:node.end_byte + 2].lstrip()
        out[name] = out.get(name, False) or after.startswith(b"(")
    return out


def _fallback_names(data: bytes, lines: set[int]) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for number, line in enumerate(data.decode("utf-8", errors="replace").split("\n"), start=1):
        if number in lines:
            for m in _IDENT.finditer(line):
                out[m.group(0)] = out.get(m.group(0), False) or line[m.end():m.end() + 1] == "("
    return out
