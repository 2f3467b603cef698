"""The audit-fix corpus: `@reviewbot fix` with its selectors (all, CWE ids, alert numbers) on an audit's issue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from reviewbot.commands.decisions import parse_command

CORPUS: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parents[2] / "corpus" / "audit_fix_commands.yaml")
                                              .read_text(encoding="utf-8"))


@pytest.mark.parametrize("entry", CORPUS, ids=[e["text"][:40] for e in CORPUS])
def test_each_fix_and_its_selectors_are_read_as_documented(entry: dict[str, Any]) -> None:
    found = parse_command(entry["text"], ["reviewbot"])
    assert (found.verb if found else None) == entry["expect"]
    if found is not None and found.verb == "fix":
        assert list(found.args) == [str(a) for a in entry["args"]]
