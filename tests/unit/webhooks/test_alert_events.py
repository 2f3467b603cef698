"""`code_scanning_alert` payloads (written from GitHub's webhook description) → a dismissal or reopening of
reviewbot's alert, or a reasoned ignore."""

from __future__ import annotations

from typing import Any

import pytest

from reviewbot.queue.request import AlertChange
from reviewbot.webhooks.events import Ignored, decide


def delivery(action: str = "closed_by_user", *, tool: str = "reviewbot", reason: str | None = "false positive",
             recent: bool = True) -> dict[str, Any]:
    instance = {"ref": "refs/heads/main", "analysis_key": "reviewbot", "environment": "{}", "state": "dismissed",
                "commit_sha": "a" * 40, "message": {"text": "User input is formatted into SQL."},
                "location": {"path": "app/db.py", "start_line": 5, "end_line": 6, "start_column": 1,
                             "end_column": 9}, "classifications": []}
    alert: dict[str, Any] = {
        "number": 12, "created_at": "2026-12-01T10:00:00Z", "state": "dismissed" if reason else "open",
        "url": "https://api.github.com/repos/acme/widgets/code-scanning/alerts/12",
        "html_url": "https://github.com/acme/widgets/security/code-scanning/12",
        "dismissed_by": {"login": "mo"} if reason else None, "dismissed_at": None, "dismissed_reason": reason,
        "dismissed_comment": "the name is checked upstream" if reason else None,
        "rule": {"id": "reviewbot/cwe-89", "severity": "error", "description": "SQL injection"},
        "tool": {"name": tool, "guid": None, "version": None}}
    alert |= {"most_recent_instance": instance} if recent else {"instances": [instance]}
    return {"action": action, "alert": alert, "ref": "refs/heads/main", "commit_oid": "a" * 40,
            "repository": {"full_name": "acme/widgets"}, "sender": {"login": "mo", "type": "User"},
            "installation": {"id": 31337}}


@pytest.mark.parametrize("recent", [True, False])  # GitHub's own examples carry only `instances`
def test_a_dismissal_of_reviewbots_alert_names_the_alert_its_place_and_why(recent: bool) -> None:
    change = decide("code_scanning_alert", delivery(recent=recent))
    assert change == AlertChange(installation_id=31337, repo="acme/widgets", number=12, change="dismissed",
                                 sender="mo", rule_id="reviewbot/cwe-89", path="app/db.py", start_line=5, end_line=6,
                                 commit_sha="a" * 40, reason="false positive",
                                 comment="the name is checked upstream")


def test_a_reopening_needs_no_place() -> None:
    change = decide("code_scanning_alert", delivery("reopened_by_user", reason=None))
    assert isinstance(change, AlertChange) and (change.change, change.number, change.sender) == ("reopened", 12, "mo")


@pytest.mark.parametrize(("body", "why"), [
    (delivery(tool="CodeQL"), "another tool"),
    (delivery("fixed"), "not a person's decision"),
    (delivery("created", reason=None), "not a person's decision"),
    (delivery(reason="something else"), "not one reviewbot learns from"),
])
def test_other_tools_githubs_own_actions_and_unknown_reasons_are_ignored(body: dict[str, Any], why: str) -> None:
    decision = decide("code_scanning_alert", body)
    assert isinstance(decision, Ignored) and why in decision.reason
