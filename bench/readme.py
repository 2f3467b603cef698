"""Write a benchmark's results between its markers in docs/benchmarks.md (`<!-- bench:NAME:start -->` … `end -->`)."""

from __future__ import annotations

from pathlib import Path

BENCHMARKS = Path(__file__).parent.parent / "docs" / "benchmarks.md"


def write_section(name: str, text: str) -> None:
    start, end = f"<!-- bench:{name}:start -->", f"<!-- bench:{name}:end -->"
    page = BENCHMARKS.read_text()
    if start not in page or end not in page:
        raise SystemExit(f"docs/benchmarks.md has no {start} … {end} markers")
    before, rest = page.split(start, 1)
    after = rest.split(end, 1)[1]
    BENCHMARKS.write_text(f"{before}{start}\n{text.rstrip()}\n{end}{after}")
