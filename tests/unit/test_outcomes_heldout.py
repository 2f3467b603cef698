"""The held-out corpus of outcomes at close (written without reading the classifier) against `at_close`."""

from __future__ import annotations

from typing import Any

import pytest

from reviewbot.outcomes.classify import ThreadState, at_close, fix_trailers
from reviewbot.outcomes.records import FindingRecord
from tests.heldout import cases, label


@pytest.mark.parametrize("case", cases("outcomes_heldout.yaml"))
def test_outcome_case(case: dict[str, Any]) -> None:
    record = FindingRecord(installation=1, repo="o/r", pr=1, fingerprint=case["fingerprint"], category="bug",
                           severity="major", path="a.py", line=1, outcome=case["before"])
    raw = case["thread"]
    thread = None if raw is None else ThreadState(comment_id=1, is_resolved=raw["is_resolved"],
                                                  resolved_by=raw["resolved_by"], thumbs_up=raw["thumbs_up"],
                                                  thumbs_down=raw["thumbs_down"])
    result = at_close(record, thread, merged=case["merged"], fixes=fix_trailers(case["commits"]), bot=case["bot"],
                      now=1.0)
    assert label(result.outcome) == label(case["expect"])
    # Reactions are counted whatever the outcome; checked where the record carries them under these names.
    for field in ("thumbs_up", "thumbs_down"):
        if raw is not None and getattr(result, field, None) is not None:
            assert getattr(result, field) == raw[field], field
