"""The `fix` corpus: how people write `@reviewbot fix` in a review thread and in a pull request comment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from reviewbot.commands.decisions import parse_command, parse_thread_command
from reviewbot.commands.help import help_text

CORPUS: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parents[2] / "corpus" / "fix_commands.yaml")
                                              .read_text(encoding="utf-8"))


@pytest.mark.parametrize("entry", CORPUS, ids=[f"{e['where']}:{e['text'][:30]}" for e in CORPUS])
def test_every_fix_is_read_and_nothing_else_is(entry: dict[str, Any]) -> None:
    if entry["where"] == "thread":
        command = parse_thread_command(entry["text"], ["reviewbot"])
        assert (command.verb if command else None) == entry["expect"]
    else:
        found = parse_command(entry["text"], ["reviewbot"])
        assert (found.verb if found else None) == entry["expect"]


def test_the_help_names_fix_in_both_places() -> None:
    text = help_text("reviewbot")
    assert "- `@reviewbot fix`:" in text and "`@reviewbot fix` fixes that one finding" in text
