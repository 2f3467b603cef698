"""Write a benchmark's results between its markers in the README (`<!-- bench:NAME:start -->` … `end -->`)."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def write_section(name: str, text: str) -> None:
    start, end = f"<!-- bench:{name}:start -->", f"<!-- bench:{name}:end -->"
    readme = README.read_text()
    if start not in readme or end not in readme:
        raise SystemExit(f"README.md has no {start} … {end} markers")
    before, rest = readme.split(start, 1)
    after = rest.split(end, 1)[1]
    README.write_text(f"{before}{start}\n{text.rstrip()}\n{end}{after}")
