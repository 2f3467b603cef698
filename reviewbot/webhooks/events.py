"""Webhook payload → what to do: a review request, a ping, or a reasoned ignore (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")
REVIEW_ACTIONS = frozenset({"opened", "reopened", "synchronize", "ready_for_review"})


class PayloadError(ValueError):
    """The payload lacks a field the event needs: a 400 for the sender."""


@dataclass(frozen=True)
class ReviewRequest:
    installation_id: int
    repo: str
    number: int
    head_sha: str
    trigger: str

    def job_args(self) -> tuple[int, str, int, str]:
        return (self.installation_id, self.repo, self.number, self.head_sha)


@dataclass(frozen=True)
class Ignored:
    reason: str


@dataclass(frozen=True)
class Ping:
    zen: str


Decision = ReviewRequest | Ignored | Ping


def decide(event: str, payload: dict[str, Any]) -> Decision:
    """Decide from the event name and payload alone; raises PayloadError for missing fields."""
    if event == "ping":
        return Ping(zen=str(payload.get("zen") or ""))
    if event == "pull_request":
        return _pull_request(payload)
    return Ignored(f"event {event!r} is not handled")


def _pull_request(payload: dict[str, Any]) -> Decision:
    action = _field(payload, "action", str)
    if action not in REVIEW_ACTIONS:
        return Ignored(f"pull_request action {action!r} does not start a review")
    pr = _field(payload, "pull_request", dict)
    if pr.get("draft") and action != "ready_for_review":
        return Ignored("draft pull request")
    installation = _field(payload, "installation", dict)
    head = _field(pr, "head", dict)
    return ReviewRequest(
        installation_id=_field(installation, "id", int),
        repo=_field(_field(payload, "repository", dict), "full_name", str),
        number=_field(pr, "number", int),
        head_sha=_field(head, "sha", str),
        trigger=f"pull_request.{action}",
    )


def _field(obj: dict[str, Any], name: str, kind: type[T]) -> T:
    value = obj.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise PayloadError(f"missing or invalid field {name!r} (expected {kind.__name__})")
    return value
