"""What an audit's prompt leaves out of a file, pure: long docstrings and blocks of whole-line comments, found by the
language's parser (never a guess: a string that is data is code), shown as one marker line that keeps numbers true."""

from __future__ import annotations

from functools import cache

from tree_sitter import Node, Query, QueryCursor, Tree
from tree_sitter_language_pack import get_language

from reviewbot.audit.contextblock import merged_ranges
from reviewbot.review.context.languages import language_for
from reviewbot.review.context.symbols import thread_parser

Ranges = tuple[tuple[int, int], ...]  # 1-based, inclusive line ranges
MIN_ELIDED_LINES = 2  # a one-line docstring or comment costs less than explaining its absence
MAX_PARSE_CHARS = 1_000_000
# Per language: which nodes are comments, and which string statements are docstrings (the first statement of a
# module, class or function body). Only languages listed here are elided; others are shown whole.
QUERIES = {"python": "(comment) @comment (module (string) @doc) (block (string) @doc)"}
DOCSTRING_PARENTS = frozenset({"module", "block"})


@cache
def _query(language: str) -> Query:
    return Query(get_language(language), QUERIES[language])  # type: ignore[arg-type]


def elided_lines(path: str, text: str, tree: Tree | None = None) -> Ranges:
    """Line ranges to leave out: a docstring's lines after its first (the summary stays), and runs of
    MIN_ELIDED_LINES or more lines holding nothing but a comment. Code is never in a range. `tree`: the file's
    syntax tree when a parse for its definitions made one (of the same UTF-8 bytes), so it is not parsed twice."""
    language = language_for(path)
    if language not in QUERIES or len(text) > MAX_PARSE_CHARS:
        return ()
    data = text.encode("utf-8", errors="replace")
    root = (tree if tree is not None else thread_parser(language).parse(data)).root_node
    captures = QueryCursor(_query(language)).captures(root)
    lines = data.split(b"\n")  # byte lines: the parser's columns count bytes
    spans: list[tuple[int, int]] = []
    for node in captures.get("doc", []):
        first, last = node.start_point.row + 1, node.end_point.row + 1
        if lines[last - 1][node.end_point.column:].strip():
            last -= 1  # code after the closing quotes on its line: that line is shown
        if _is_docstring(node) and last - first + 1 > MIN_ELIDED_LINES:
            spans.append((first + 1, last))
    whole_line = sorted(n.start_point.row + 1 for n in captures.get("comment", [])
                        if not lines[n.start_point.row][:n.start_point.column].strip())
    run: list[int] = []
    for row in [*whole_line, -1]:
        if run and row == run[-1] + 1:
            run.append(row)
            continue
        if len(run) >= MIN_ELIDED_LINES:
            spans.append((run[0], run[-1]))
        run = [row]
    return merged_ranges(spans)


def _is_docstring(node: Node) -> bool:
    """The first statement of its body (comments before it do not count) and alone on its lines."""
    parent = node.parent
    if parent is None or parent.type not in DOCSTRING_PARENTS:
        return False
    first = next((c for c in parent.named_children if c.type != "comment"), None)
    return first is not None and first.id == node.id


def marker(start: int, end: int) -> str:
    """The line shown instead of a range: its numbers, so every later line keeps its own."""
    return f"{start}-{end} (elided)"
