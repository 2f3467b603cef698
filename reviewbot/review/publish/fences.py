"""Code fences nothing inside can close: the one helper prompts and published Markdown share, without a parser."""

from __future__ import annotations

import re


def fence(code: str, info: str = "") -> str:
    """A fenced block whose fence is longer than any backtick run inside the code."""
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{code.rstrip(chr(10))}\n{ticks}"
