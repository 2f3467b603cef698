"""The README's two commands are the ones `./dev` runs, CI runs the README's test command, and the README stays
short enough for a newcomer to read in about five minutes."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    """The commands of the README's first shell block (before the comments)."""
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    assert block, "the README shows its commands in a ```sh block"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_readmes_commands_are_devs_and_ci_runs_the_test_command() -> None:
    assert readme_commands() == ["./dev run", "./dev test"]
    dev = (ROOT / "dev").read_text()
    assert all(f"\n    {verb})\n" in dev for verb in ("run", "test"))
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    assert ci[-1] == "./dev test"


def test_the_readme_reads_in_about_five_minutes() -> None:
    words = len((ROOT / "README.md").read_text().split())
    assert words <= 1_300, f"{words} words"
