"""The webhook's side of audit fixes: `fix` is read in a plain issue (an audit's answer or tracking issue), and every
published `check_suite` `completed` example is a completed suite the intake may look up (never an error)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reviewbot.webhooks.events import CommentCommand, Ignored, PayloadError, SuiteCompleted, decide

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "webhooks"


def issue_comment(body: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((FIXTURES / "issue_comment.created.json").read_text())
    del payload["issue"]["pull_request"]
    payload["comment"]["body"] = body
    return payload


def test_fix_and_audit_are_read_in_an_issue_and_nothing_else_is() -> None:
    found = decide("issue_comment", issue_comment("@reviewbot fix CWE-89"), ["reviewbot"])
    assert isinstance(found, CommentCommand) and found.command.args == ("CWE-89",) and not found.pull
    assert isinstance(decide("issue_comment", issue_comment("@reviewbot review"), ["reviewbot"]), Ignored)


def test_every_published_completed_suite_is_a_completed_suite() -> None:
    examples = [json.loads(line) for line in (FIXTURES / "published" / "check_suite.jsonl").read_text().splitlines()]
    completed = [e for e in examples if e["action"] == "completed"]
    assert completed
    for example in completed:
        example["installation"] = {"id": 5}
        decided = decide("check_suite", example)
        assert decided == SuiteCompleted(5, example["repository"]["full_name"], example["check_suite"]["head_sha"],
                                         example["check_suite"]["id"])
        del example["installation"]
        with pytest.raises(PayloadError):  # no installation: the webhook answers 400, as for any such payload
            decide("check_suite", example)
