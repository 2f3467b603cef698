"""Python's own parser behind one lock: CPython before 3.11.8 and 3.12.1 may fail `ast.parse` in two threads at once."""

from __future__ import annotations

import ast
import threading

# The conversion of the parsed tree into `ast` objects keeps a recursion counter per interpreter, not per thread
# (CPython gh-106905): two plans parsing at once in a worker's threads raised "SystemError: AST constructor recursion
# depth mismatch" and the audit's plan failed. The conversion holds the GIL anyway, so the lock costs no throughput.
_LOCK = threading.Lock()


def parse_python(text: str) -> ast.Module:
    """`ast.parse(text)`; raises SyntaxError or ValueError (a null byte) as it does."""
    with _LOCK:
        return ast.parse(text)
