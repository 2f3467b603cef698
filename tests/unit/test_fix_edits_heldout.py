"""The held-out corpus of fix edits (written without reading the checks) against applying and checking a fix."""

from __future__ import annotations

from typing import Any

import pytest

from reviewbot.fixes.declined import Declined
from reviewbot.fixes.edits import apply_edits
from reviewbot.fixes.fix_checks import check_change
from reviewbot.fixes.wire import Edit
from tests.heldout import cases, label


def outcome(case: dict[str, Any]) -> str | None:
    edits = [Edit(path=e["path"], old=e["old"], new=e["new"]) for e in case["edits"]]
    try:
        change = apply_edits(case["files"], edits)
        check_change(change, case["allowed"])
    except Declined as declined:
        return label(declined.reason)
    return "ok"


@pytest.mark.parametrize("case", cases("fix_edits_heldout.yaml"))
def test_fix_edit_case(case: dict[str, Any]) -> None:
    assert outcome(case) == case["expect"]
