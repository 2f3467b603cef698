"""What may follow `fix` in an audit's issue: `all`, CWE ids (`CWE-89`) and code-scanning alert numbers (`#12`)."""

from __future__ import annotations

MAX_SELECTORS = 20
ALL = "all"


def fix_selectors(words: str) -> tuple[str, ...] | None:
    """The selectors after `fix`, canonical (`all`, `CWE-89`, `#12`), in order without repeats; () for none; None
    when any word is not one (`fix everything`, `fix this please`: prose, not a command)."""
    found: list[str] = []
    for word in words.replace(",", " ").split():
        selector = _selector(word.strip().rstrip(".!"))
        if selector is None:
            return None
        found.append(selector)
    return tuple(dict.fromkeys(found))[:MAX_SELECTORS]


def _selector(word: str) -> str | None:
    lowered = word.lower()
    if lowered == ALL:
        return ALL
    if lowered.startswith("cwe"):
        number = lowered[3:].lstrip("-_:")
        return f"CWE-{int(number)}" if number.isascii() and number.isdigit() and len(number) <= 5 else None
    number = lowered.removeprefix("#")
    if number.isascii() and number.isdigit() and 0 < len(number) <= 9 and int(number) > 0:
        return f"#{int(number)}"
    return None
