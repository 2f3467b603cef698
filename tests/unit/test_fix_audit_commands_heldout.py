"""The held-out corpus of the audit form of `fix` (all, one CWE, one alert number), written before its parser."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reviewbot.commands import decisions
from tests.heldout import cases, label

NAMES = ("reviewbot", "reviewbot[bot]")


@pytest.mark.parametrize("case", cases("fix_audit_commands_heldout.yaml"))
def test_fix_audit_command_case(case: dict[str, Any]) -> None:
    parse: Callable[..., Any] | None = getattr(decisions, "parse_fix_target", None)
    if parse is None:
        pytest.skip("reviewbot.commands.decisions has no parse_fix_target yet (the lead wires it)")
    # Assumed shape, to be confirmed when wired: parse_fix_target(body, names) -> None | object with .target, .value.
    found = parse(case["text"], NAMES)
    target = None if found is None else label(found.target)
    value = None if found is None else found.value
    if isinstance(value, str):
        value = value.upper()
    assert (target, value) == (case["expect"]["target"], case["expect"]["value"]), repr(case["text"])
