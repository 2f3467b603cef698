"""The checks a change passes before anything is pushed or suggested: it parses, stays in scope, is small, and
writes no secret. The verifier's and the re-review's verdicts are the job's (they ask the model)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reviewbot.fixes.declined import Declined
from reviewbot.fixes.edits import Change
from reviewbot.fixes.patch import changed_lines
from reviewbot.review.context.languages import language_for
from reviewbot.review.context.pyparse import parse_python
from reviewbot.review.context.symbols import MAX_PARSE_BYTES, thread_parser
from reviewbot.review.publish.markdown import code_span
from reviewbot.review.publish.redaction import has_secret


@dataclass(frozen=True)
class Bounds:
    """How large one fix may be: changed lines (removed plus added) and files."""

    max_lines: int = 200
    max_files: int = 5


def check_change(change: Change, allowed: Iterable[str], bounds: Bounds = Bounds()) -> None:
    """Declined with the first check that fails, cheapest first; None when the change may go on."""
    scope = set(allowed)
    outside = [p for p in change.paths if p not in scope]
    if outside:
        raise Declined("out-of-scope", ", ".join(code_span(p) for p in outside[:5]))
    guarded = [p for p in change.paths if controls(p)]
    if guarded:
        raise Declined("out-of-scope", ", ".join(code_span(p) for p in guarded[:5]) + " steers the repository's "
                       "automation or reviewbot itself, which a fix never changes")
    lines = sum(changed_lines(change.before[p], change.after[p]) for p in change.paths)
    if lines > bounds.max_lines or len(change.paths) > bounds.max_files:
        raise Declined("too-large", f"{lines} changed lines in {len(change.paths)} files; at most "
                                    f"{bounds.max_lines} lines in {bounds.max_files} files")
    for path in change.paths:
        if has_secret(change.after[path]) and not has_secret(change.before[path]):
            raise Declined("secret", f"in {code_span(path)}")
    for path in change.paths:
        before, after = parse_errors(path, change.before[path]), parse_errors(path, change.after[path])
        if after > before:
            raise Declined("does-not-parse", f"{code_span(path)}: {after - before} new syntax errors")
        if language_for(path) == "python" and _compiles(change.before[path]) and not _compiles(change.after[path]):
            # tree-sitter's grammar accepts what CPython refuses (a body not indented under its `for`)
            raise Declined("does-not-parse", f"{code_span(path)}: Python no longer compiles it")


# What a finding's text can point a fix at but a fix must never change: CI (a workflow runs with the repository's
# secrets), reviewbot's own configuration, who owns the code, and git's own files. GitHub refuses workflow edits
# from an App without the `workflows` permission; nothing else would refuse the rest.
_CONTROL_DIRS = (".github/workflows/", ".github/actions/", ".git/")
_CONTROL_FILES = frozenset({".github/reviewbot.yml", ".github/reviewbot.yaml", ".gitmodules", ".gitattributes",
                            "CODEOWNERS", ".github/CODEOWNERS", "docs/CODEOWNERS", ".github/dependabot.yml"})


def controls(path: str) -> bool:
    """A file a fix may not touch: one of the above, or a name that is not a plain relative path."""
    parts = path.split("/")
    plain_path = bool(path) and not path.startswith("/") and "\\" not in path and path.isprintable() and all(
        part not in ("", ".", "..") for part in parts)
    return not plain_path or path in _CONTROL_FILES or path.startswith(_CONTROL_DIRS)


def parse_errors(path: str, text: str) -> int:
    """Error and missing nodes tree-sitter finds in `text`; 0 for a file without a grammar (nothing to check)."""
    language = language_for(path)
    data = text.encode("utf-8", errors="replace")
    if language is None or len(data) > MAX_PARSE_BYTES:
        return 0
    root = thread_parser(language).parse(data).root_node
    if not root.has_error:
        return 0
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        if node.has_error:  # only subtrees holding an error are walked
            stack.extend(node.children)
    return count


def _compiles(text: str) -> bool:
    """Python's own parser (no code runs): a file the head's Python grammar reads must stay readable."""
    try:
        parse_python(text)
    except (SyntaxError, ValueError):  # ValueError: a null byte
        return False
    return True
