"""What each changed file does to its symbols: definitions changed (signature, body, removed, added), names used."""

from __future__ import annotations

from dataclasses import dataclass, field

from reviewbot.review.context.symbols import Definition, Parsed, names_on_lines, parse
from reviewbot.review.diff.newtext import changed_lines, head_text
from reviewbot.review.diff.parse import FileDiff


@dataclass(frozen=True)
class ChangedDef:
    name: str
    kind: str
    how: str  # "signature" | "body" | "removed" | "added"
    definition: Definition


@dataclass(frozen=True)
class FileChange:
    file: FileDiff
    base: Parsed | None
    head: Parsed | None
    changed: tuple[ChangedDef, ...]
    uses: dict[str, bool]  # names on added lines -> called there
    base_lines: frozenset[int] = field(default_factory=frozenset)  # base lines the hunks touch or surround

    @property
    def defined_here(self) -> frozenset[str]:
        defs = (self.head.definitions if self.head else ()) + (self.base.definitions if self.base else ())
        return frozenset(d.name for d in defs)


def analyze(file: FileDiff, base_text: str | None, base: Parsed | None = None) -> FileChange:
    """Compare the definitions the hunks touch in the base and the rebuilt head version of one file."""
    old_path = file.old_path or file.path
    if base is None and base_text is not None:
        base = parse(old_path, base_text)
    new = head_text(file, base_text)
    head = parse(file.path, new) if new is not None else None
    added, removed = changed_lines(file)
    touched_head = _touched(head, added)
    touched_base = _touched(base, removed)
    if file.status == "removed" and base is not None:
        touched_base = {_key(d): d for d in base.definitions if d.parent is None}
    base_all = _signatures(base)
    head_all = _signatures(head)
    changed: dict[tuple[str | None, str], ChangedDef] = {}
    for key, d in {**touched_base, **touched_head}.items():
        before, after = base_all.get(key), head_all.get(key)
        if before is not None and after is not None:
            how = "body" if before == after else "signature"  # a constant's value is its interface
        elif before is not None:
            how = "removed"
        else:
            how = "added"
        changed[key] = ChangedDef(d.name, d.kind, how, d)
    uses = names_on_lines(head, added) if head is not None else {}
    return FileChange(file=file, base=base, head=head, changed=tuple(changed.values()), uses=uses,
                      base_lines=frozenset(_base_lines(file)))


def _signatures(parsed: Parsed | None) -> dict[tuple[str | None, str], list[str]]:
    """Each name's signatures in source order: every overload of a function, not only the last one."""
    out: dict[tuple[str | None, str], list[str]] = {}
    for d in parsed.definitions if parsed else ():
        out.setdefault(_key(d), []).append(d.signature)
    return out


def _key(d: Definition) -> tuple[str | None, str]:
    return (d.parent, d.name)


def _touched(parsed: Parsed | None, lines: set[int]) -> dict[tuple[str | None, str], Definition]:
    """The innermost definition of every changed line, plus definitions whose header line changed.

    One sweep over lines and definitions together (both sorted; definitions nest, so the innermost open one
    is on top of the stack): linear even for files with tens of thousands of definitions.
    """
    if parsed is None or not lines:
        return {}
    out: dict[tuple[str | None, str], Definition] = {}
    defs = parsed.definitions  # in source order: by start line, outer before inner
    stack: list[Definition] = []
    i = 0
    for line in sorted(lines):
        while i < len(defs) and defs[i].start <= line:
            while stack and stack[-1].end < defs[i].start:
                stack.pop()
            stack.append(defs[i])
            i += 1
        while stack and stack[-1].end < line:
            stack.pop()
        if stack:
            out.setdefault(_key(stack[-1]), stack[-1])
    return out


def _base_lines(file: FileDiff) -> set[int]:
    """Base line numbers a hunk covers (removed and context lines, and where additions land)."""
    out: set[int] = set()
    for hunk in file.hunks:
        out.update(range(max(hunk.old_start, 1), hunk.old_start + max(hunk.old_len, 1)))
    return out
