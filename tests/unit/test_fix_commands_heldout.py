"""The held-out `fix` command corpus (written without reading the parser) against the command parsers."""

from __future__ import annotations

from typing import Any

import pytest

from reviewbot.commands.decisions import parse_command, parse_thread_command
from tests.heldout import cases, label

NAMES = ("reviewbot", "reviewbot[bot]")


@pytest.mark.parametrize("case", cases("fix_commands_heldout.yaml"))
def test_fix_command_case(case: dict[str, Any]) -> None:
    parse = parse_thread_command if case["where"] == "thread" else parse_command
    command = parse(case["text"], NAMES)
    got = None if command is None else label(command.verb)
    assert got == label(case["expect"]), f"{case['where']}: {case['text']!r}"
