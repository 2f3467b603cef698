"""`code_scanning_alert` → an alert of reviewbot's tool dismissed or reopened by a person in GitHub's interface, or
a reasoned ignore (pure). What the dismissal means (who may decide, what is remembered) is the worker's."""

from __future__ import annotations

from typing import Any

from reviewbot.queue.request import AlertChange
from reviewbot.review.findings.alerts import TOOL_NAME

# GitHub's `dismissed_reason` values a person picks when closing an alert (the webhook's description).
DISMISS_REASONS = frozenset({"false positive", "won't fix", "used in tests"})


def alert_change(payload: dict[str, Any], field: Any) -> AlertChange | str:
    """The change, or why it is ignored: other tools' alerts, GitHub's own actions (created, fixed, appeared in a
    branch), and dismissals without one of the three reasons."""
    action = field(payload, "action", str)
    alert = field(payload, "alert", dict)
    tool = alert.get("tool")
    if not isinstance(tool, dict) or tool.get("name") != TOOL_NAME:
        return "an alert of another tool"
    if action not in ("closed_by_user", "reopened_by_user"):
        return f"code_scanning_alert action {action!r} is not a person's decision"
    sender = field(field(payload, "sender", dict), "login", str)
    base: dict[str, Any] = {"installation_id": field(field(payload, "installation", dict), "id", int),
            "repo": field(field(payload, "repository", dict), "full_name", str),
            "number": field(alert, "number", int), "sender": sender}
    if action == "reopened_by_user":
        return AlertChange(**base, change="reopened")
    reason = alert.get("dismissed_reason")
    if reason not in DISMISS_REASONS:
        return f"dismissal reason {reason!r} is not one reviewbot learns from"
    instance = _instance(alert)
    location = instance.get("location")
    where: dict[str, Any] = location if isinstance(location, dict) else {}
    rule = field(field(alert, "rule", dict), "id", str)
    start, path, sha = where.get("start_line"), where.get("path"), instance.get("commit_sha")
    if not (isinstance(start, int) and start >= 1 and isinstance(path, str) and isinstance(sha, str)):
        return "a dismissed alert without a location to remember"
    last = where.get("end_line")
    end = last if isinstance(last, int) else start
    comment = alert.get("dismissed_comment")
    return AlertChange(**base, change="dismissed", rule_id=rule, path=path, start_line=start, end_line=max(start, end),
                       commit_sha=sha, reason=str(reason), comment=comment[:280] if isinstance(comment, str) else "")


def _instance(alert: dict[str, Any]) -> dict[str, Any]:
    """The most recent instance; some deliveries carry only `instances` (GitHub's own examples do)."""
    recent = alert.get("most_recent_instance")
    if isinstance(recent, dict):
        return recent
    listed = [i for i in alert.get("instances") or () if isinstance(i, dict)]
    return listed[-1] if listed else {}
