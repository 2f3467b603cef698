"""`python -m reviewbot.settings [docs/configuration.md]`: print the variables table, or rewrite it between markers."""

from __future__ import annotations

import sys
from pathlib import Path

from reviewbot.settings import settings_markdown

START, END = "<!-- settings:start -->", "<!-- settings:end -->"


def write_between_markers(page: Path) -> None:
    text = page.read_text()
    if START not in text or END not in text:
        raise SystemExit(f"{page} has no {START} … {END} markers")
    before, rest = text.split(START, 1)
    page.write_text(f"{before}{START}\n{settings_markdown()}{END}{rest.split(END, 1)[1]}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        write_between_markers(Path(sys.argv[1]))
    else:
        print(settings_markdown(), end="")
