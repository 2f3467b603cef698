"""CWE identifiers as the findings carry them: one spelling, "CWE-89", whatever the model wrote."""

from __future__ import annotations

import re

_CWE = re.compile(r"^\s*(?:cwe)?[\s:_-]*(\d{1,5})\s*$", re.IGNORECASE)


def normalize_cwe(value: object) -> str | None:
    """"CWE-89", "cwe 89", "89" or 89 → "CWE-89"; anything else → None (a bad tag is dropped, not an error)."""
    if isinstance(value, bool) or value is None:
        return None
    match = _CWE.match(str(value))
    return f"CWE-{int(match.group(1))}" if match else None
