"""Webhook payload → what to do: review, comment command, re-run, cancel, or a reasoned ignore (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from reviewbot.commands.decisions import Command, parse_command
from reviewbot.queue.request import AlertChange, ReviewRequest
from reviewbot.webhooks.alert_events import alert_change
from reviewbot.webhooks.pushes import DefaultBranchPush, default_branch_push
from reviewbot.webhooks.review_comments import TRUSTED_ASSOCIATIONS, ThreadReply, review_comment

T = TypeVar("T")
REVIEW_ACTIONS = frozenset({"opened", "reopened", "synchronize", "ready_for_review"})
RERUN_ACTION = "rereview"
FIX_ACTION = "fix"  # the check run's Fix button (jobs/pr_review/checkrun.py shows it)


class PayloadError(ValueError):
    """The payload lacks a field the event needs: a 400 for the sender."""


@dataclass(frozen=True)
class CommentCommand:
    installation_id: int
    repo: str
    number: int
    comment_id: int
    author: str
    trusted: bool  # the association alone allows it; otherwise the worker asks the API
    command: Command
    pull: bool = False  # the comment is on a pull request (an `audit` there audits the pull request's head)


@dataclass(frozen=True)
class Rerun:
    installation_id: int
    repo: str
    head_sha: str
    numbers: tuple[int, ...]  # empty when GitHub names no pull request (a check suite of a fork's PR)
    full: bool
    suite_id: int | None = None  # a check suite's id: its check runs name their pull request in `external_id`


@dataclass(frozen=True)
class FixButton:
    """The Fix button on the check run: every open verified finding of the pull request, fixed on that head.
    `sender` pressed it; the fix job checks their permission as for a command."""

    installation_id: int
    repo: str
    head_sha: str
    numbers: tuple[int, ...]
    sender: str


@dataclass(frozen=True)
class SuiteCompleted:
    """A check suite completed on a commit: when the commit is a fix's, its CI result is reported."""

    installation_id: int
    repo: str
    head_sha: str
    suite_id: int


@dataclass(frozen=True)
class Closed:
    """A pull request closed, merged or not: its findings' outcomes are decided."""

    installation_id: int
    repo: str
    number: int
    head_sha: str
    merged: bool


@dataclass(frozen=True)
class Ignored:
    reason: str


@dataclass(frozen=True)
class Accepted:
    reason: str


@dataclass(frozen=True)
class Ping:
    zen: str


Decision = (ReviewRequest | CommentCommand | ThreadReply | Rerun | FixButton | SuiteCompleted | Closed
            | DefaultBranchPush | AlertChange | Ignored | Accepted | Ping)


def decide(event: str, payload: dict[str, Any], names: Iterable[str] = ()) -> Decision:
    """Decide from the event, the payload and the App's names alone; PayloadError for missing fields."""
    if event == "ping":
        return Ping(zen=str(payload.get("zen") or ""))
    if event in ("installation", "installation_repositories"):
        return Accepted(f"{event}.{payload.get('action')}")
    handler = {"pull_request": _pull_request, "check_run": _check_run, "check_suite": _check_suite}.get(event)
    if handler is not None:
        return handler(payload)
    if event == "issue_comment":
        return _issue_comment(payload, names)
    if event == "pull_request_review_comment":
        reply = review_comment(payload, names, _field)
        return Ignored(reply) if isinstance(reply, str) else reply
    if event == "push":
        push = default_branch_push(payload, _field)
        return Ignored(push) if isinstance(push, str) else push
    if event == "code_scanning_alert":
        change = alert_change(payload, _field)
        return Ignored(change) if isinstance(change, str) else change
    return Ignored(f"event {event!r} is not handled")


def _pull_request(payload: dict[str, Any]) -> Decision:
    action = _field(payload, "action", str)
    pr = _field(payload, "pull_request", dict)
    repo = _repo(payload)
    if action == "closed":
        return Closed(installation_id=_installation(payload), repo=repo, number=_field(pr, "number", int),
                      head_sha=_field(_field(pr, "head", dict), "sha", str), merged=pr.get("merged") is True)
    if action not in REVIEW_ACTIONS:
        return Ignored(f"pull_request action {action!r} does not start a review")
    before = payload.get("before") if action == "synchronize" else None
    return ReviewRequest(installation_id=_installation(payload), repo=repo, number=_field(pr, "number", int),
                         head_sha=_field(_field(pr, "head", dict), "sha", str), trigger=action,
                         draft=bool(pr.get("draft")), before=before if isinstance(before, str) else None)


def _issue_comment(payload: dict[str, Any], names: Iterable[str]) -> Decision:
    if payload.get("action") != "created":
        return Ignored("only new comments are read")
    issue = _field(payload, "issue", dict)
    comment = _field(payload, "comment", dict)
    user = _field(comment, "user", dict)
    login = _field(user, "login", str)
    if user.get("type") == "Bot" or login.endswith("[bot]"):
        return Ignored("comments from bots never trigger reviews")
    command = parse_command(str(comment.get("body") or ""), names)
    if command is None:
        return Ignored("comment does not address reviewbot")
    if not issue.get("pull_request") and command.verb not in ("audit", "fix"):  # an issue: audits and their fixes
        return Ignored("comment on an issue, not a pull request")
    association = str(comment.get("author_association") or "NONE")
    return CommentCommand(installation_id=_installation(payload), repo=_repo(payload),
                          number=_field(issue, "number", int), comment_id=_field(comment, "id", int),
                          author=login, trusted=association in TRUSTED_ASSOCIATIONS, command=command,
                          pull=bool(issue.get("pull_request")))


def _check_run(payload: dict[str, Any]) -> Decision:
    action = _field(payload, "action", str)
    run = _field(payload, "check_run", dict)
    if action == "requested_action":
        identifier = _field(_field(payload, "requested_action", dict), "identifier", str)
        if identifier == FIX_ACTION:
            return FixButton(installation_id=_installation(payload), repo=_repo(payload),
                             head_sha=_field(run, "head_sha", str), numbers=_numbers(run) or _external_number(run),
                             sender=_field(_field(payload, "sender", dict), "login", str))
        if identifier != RERUN_ACTION:
            return Ignored(f"unknown check run action {identifier!r}")
    elif action != "rerequested":
        return Ignored(f"check_run action {action!r} is not handled")
    return Rerun(installation_id=_installation(payload), repo=_repo(payload),
                 head_sha=_field(run, "head_sha", str), numbers=_numbers(run) or _external_number(run),
                 full=action == "requested_action")


def _check_suite(payload: dict[str, Any]) -> Decision:
    if payload.get("action") == "completed" and isinstance(payload.get("check_suite"), dict):
        # any App's suite: the intake keeps it only for a fix commit
        suite = _field(payload, "check_suite", dict)
        return SuiteCompleted(installation_id=_installation(payload), repo=_repo(payload),
                              head_sha=_field(suite, "head_sha", str), suite_id=_field(suite, "id", int))
    if payload.get("action") != "rerequested":
        return Ignored(f"check_suite action {payload.get('action')!r} is not handled")
    suite = _field(payload, "check_suite", dict)
    suite_id = suite.get("id")
    return Rerun(installation_id=_installation(payload), repo=_repo(payload),
                 head_sha=_field(suite, "head_sha", str), numbers=_numbers(suite), full=False,
                 suite_id=suite_id if isinstance(suite_id, int) and 0 < suite_id < 2**63 else None)


def _numbers(obj: dict[str, Any]) -> tuple[int, ...]:
    prs = obj.get("pull_requests")
    if not isinstance(prs, list):  # found by fuzzing: a number here made the endpoint answer 500
        return ()
    return tuple(int(p["number"]) for p in prs if isinstance(p, dict) and isinstance(p.get("number"), int))


def _external_number(run: dict[str, Any]) -> tuple[int, ...]:
    """The pull request number our check runs carry as `external_id`: GitHub leaves `pull_requests` empty for
    a pull request from a fork, and rerequest events only reach the App that created the run."""
    external = run.get("external_id")
    if isinstance(external, str) and external.isascii() and external.isdigit() and 0 < int(external) < 2**31:
        return (int(external),)
    return ()


def _repo(payload: dict[str, Any]) -> str:
    return _field(_field(payload, "repository", dict), "full_name", str)


def _installation(payload: dict[str, Any]) -> int:
    return _field(_field(payload, "installation", dict), "id", int)


def _field(obj: dict[str, Any], name: str, kind: type[T]) -> T:
    value = obj.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise PayloadError(f"missing or invalid field {name!r} (expected {kind.__name__})")
    return value
