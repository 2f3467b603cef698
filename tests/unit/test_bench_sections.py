"""`--write-readme` writes benchmark sections into docs/benchmarks.md: every section a benchmark writes has its
markers there, and the README, which a newcomer reads, holds none."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench import readme

ROOT = Path(__file__).resolve().parents[2]


def test_every_section_a_benchmark_writes_has_its_markers_in_the_benchmarks_page() -> None:
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    assert readme.BENCHMARKS == ROOT / "docs" / "benchmarks.md"
    written = {name for path in (ROOT / "bench").glob("*.py")
               for name in re.findall(r"write_section\(\"([\w-]+)\"", path.read_text())}
    assert {"real", "context", "cost", "cache", "webhook", "worker", "audit"} <= written
    missing = [n for n in sorted(written) if f"<!-- bench:{n}:start -->" not in page or
               f"<!-- bench:{n}:end -->" not in page]
    assert missing == []
    assert "<!-- bench:" not in (ROOT / "README.md").read_text()


def test_a_section_is_replaced_between_its_markers_and_nothing_else_moves(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "benchmarks.md"
    page.write_text("# B\n\nkept\n<!-- bench:real:start -->\nold\n<!-- bench:real:end -->\nafter\n")
    monkeypatch.setattr(readme, "BENCHMARKS", page)
    readme.write_section("real", "| new | table |\n")
    assert page.read_text() == ("# B\n\nkept\n<!-- bench:real:start -->\n| new | table |\n"
                                "<!-- bench:real:end -->\nafter\n")
    with pytest.raises(SystemExit, match="no <!-- bench:nope:start -->"):
        readme.write_section("nope", "x")
