"""When a suggestion may be a ```suggestion block: it replaces exactly the commented lines of the head file."""

from __future__ import annotations


def applies(suggestion: str | None, head_lines: list[str] | None, start: int, end: int) -> bool:
    """True when GitHub's "Commit suggestion" would do what the finding says.

    Models often repeat an unchanged neighbouring line in their suggestion; committing that would duplicate
    the line, so such suggestions are shown as plain code instead.
    """
    if suggestion is None or head_lines is None or start < 1 or end > len(head_lines) or start > end:
        return False
    proposed = suggestion.rstrip("\n").split("\n")
    current = head_lines[start - 1:end]
    if [p.rstrip() for p in proposed] == [c.rstrip() for c in current]:
        return False  # a no-op suggestion
    before = head_lines[start - 2].strip() if start >= 2 else None
    after = head_lines[end].strip() if end < len(head_lines) else None
    if before and proposed[0].strip() == before and current[0].strip() != before:
        return False
    return not (after and proposed[-1].strip() == after and current[-1].strip() != after)
