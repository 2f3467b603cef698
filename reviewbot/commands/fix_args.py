"""What may follow `fix` in an audit's issue: one target, `all`, a CWE id (`CWE-89`, `CWE 89`) or a code-scanning
alert number (`#12`, `12`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ALL = "all"
MAX_ALERT_DIGITS = 18  # alert numbers fit GitHub's 64-bit ids; a longer number is no alert's


@dataclass(frozen=True)
class AuditFixTarget:
    """`fix` (all), `fix CWE-89` (a class: `value` "CWE-89") or `fix #12` (an alert: `value` 12)."""

    target: Literal["all", "cwe", "alert"]
    value: str | int | None = None

    @property
    def selector(self) -> str:
        """As the fix job takes it: `all`, `CWE-89`, `#12`."""
        return ALL if self.value is None else f"#{self.value}" if self.target == "alert" else str(self.value)


def fix_selectors(words: str) -> tuple[str, ...] | None:
    """The one selector after `fix`, canonical (`all`, `CWE-89`, `#12`); () for none; None when the words are not
    one target (`fix everything`, `fix CWE-89, CWE-79`, `fix 12 please`: prose, not a command)."""
    target = fix_target(words)
    if target is None:
        return None
    return () if target.value is None and not words.strip() else (target.selector,)


def fix_target(words: str) -> AuditFixTarget | None:
    split = words.split()
    if len(split) == 2 and split[0].lower() == "cwe":  # "CWE 89", as prose writes it
        split = [f"cwe-{split[1]}"]
    if not split:
        return AuditFixTarget("all")
    if len(split) > 1:
        return None
    lowered = split[0].rstrip(".!").lower()
    if lowered == ALL:
        return AuditFixTarget("all")
    if lowered.startswith("cwe"):
        number = lowered[3:].removeprefix("-").removeprefix(":")
        ok = number.isascii() and number.isdigit() and len(number) <= 5 and int(number) > 0
        return AuditFixTarget("cwe", f"CWE-{int(number)}") if ok else None
    number = lowered.removeprefix("#")
    if number.isascii() and number.isdigit() and len(number) <= MAX_ALERT_DIGITS and int(number) > 0:
        return AuditFixTarget("alert", int(number))
    return None
