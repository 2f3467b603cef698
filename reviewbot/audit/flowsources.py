"""Which functions start a flow, pure, per language: a body naming a source of flows.py or an attribute holding
input (a class-based view's `self.kwargs`), a Python view taking the request, a C function a header exports that
takes a buffer and its length (a library's public API: its caller's bytes are input)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reviewbot.audit.flows import SOURCE_ATTRIBUTES
from reviewbot.review.context.languages import language_for
from reviewbot.review.context.symbols import Definition

FAMILIES = {"python": "python", "c": "c", "cpp": "c"}  # flows are listed within one family: C++ calls C and back
# A function taking the request is a view: it and the arguments captured from the URL with it are input.
REQUEST_PARAMETERS = frozenset({"request", "req"})
SIZE_PARAMETERS = frozenset({"size_t", "len", "length", "size", "nbytes", "count"})
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx")
_SEPARATORS = {c: " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")}


def identifiers(line: str) -> frozenset[str]:
    """The words of a line of code (`request.GET.get` -> request, GET, get): cheaper than a parse per function."""
    return frozenset(line.translate(_SEPARATORS).split())


def language_family(path: str) -> str | None:
    """"python" or "c" (C and C++) for a file whose functions and calls flow listing reads, else None."""
    return FAMILIES.get(language_for(path) or "")


def exported_names(definitions: Mapping[str, Sequence[Definition]]) -> frozenset[str]:
    """The functions the C and C++ headers of the tree declare: a library's public API."""
    return frozenset(d.name for path, found in definitions.items() if path.endswith(HEADER_SUFFIXES)
                     for d in found if d.kind == "function")


def attribute_source(lines: Sequence[str], d: Definition, language: str) -> bool:
    """Whether the definition's body reads an attribute that holds input in its language (`self.kwargs`)."""
    held = SOURCE_ATTRIBUTES.get(language, frozenset())
    return bool(held) and any(a in lines[n - 1] for n in range(d.start, min(d.end, len(lines)) + 1) for a in held)


def takes_input(d: Definition, family: str, exported: frozenset[str]) -> bool:
    """A Python view (it takes the request), or a C function a header exports that takes a pointer and a size:
    what its caller passes is input (a prototype has no calls, so only definitions start a walk)."""
    words = identifiers(d.signature)
    if family == "python":
        return not words.isdisjoint(REQUEST_PARAMETERS)
    return family == "c" and d.name in exported and "*" in d.signature and not words.isdisjoint(SIZE_PARAMETERS)
