"""What the current job or webhook is about, in a contextvar: log fields, model requests, report facts."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from reviewbot.model import Usage

if TYPE_CHECKING:
    from reviewbot.inference.client import ChatResult
    from reviewbot.review.publish.markdown import ReviewReport

LOG_FIELDS = ("delivery", "job_id", "repo", "pr", "sha", "event")
SEVERITIES = ("critical", "major", "minor", "nit")


class HasRateLimit(Protocol):
    def rate_limit(self) -> tuple[int, int] | None: ...


@dataclass(frozen=True)
class ModelRequest:
    """One paid model request (replays of stored answers are not requests)."""

    model: str
    latency_s: float
    via_async: bool
    usage: Usage


@dataclass(frozen=True)
class ReportFacts:
    files_reviewed: int
    files_skipped: int
    comments: int
    findings: dict[str, int]


@dataclass
class Scope:
    """One job try or one webhook request; tasks and threads started inside see the same object."""

    fields: dict[str, Any]
    requests: list[ModelRequest] = field(default_factory=list)
    report: ReportFacts | None = None
    ports: list[HasRateLimit] = field(default_factory=list)
    # Set by a job that spends money: each paid request is charged to the daily budgets as it arrives, so a
    # review that fails afterwards (invalid answers, a time-out, a crash) has still paid for it. The second
    # argument names a request that may arrive twice (a queued one, polled again after a crash): charged once.
    charge: Callable[[Usage, str | None], Awaitable[None]] | None = None

    @property
    def usage(self) -> Usage:
        return sum((r.usage for r in self.requests), Usage())

    @property
    def model(self) -> str:
        return self.requests[-1].model if self.requests else ""


P = TypeVar("P", bound=HasRateLimit)
_CURRENT: ContextVar[Scope | None] = ContextVar("reviewbot_scope", default=None)


@contextlib.contextmanager
def bind(**fields: Any) -> Iterator[Scope]:
    """Open a scope; empty values are left out so log lines carry only what is known."""
    parent = _CURRENT.get()
    inherited = dict(parent.fields) if parent is not None else {}
    scope = Scope({**inherited, **{k: v for k, v in fields.items() if v not in (None, "")}})
    token = _CURRENT.set(scope)
    try:
        yield scope
    finally:
        _CURRENT.reset(token)


def current() -> Scope | None:
    return _CURRENT.get()


def log_fields() -> dict[str, Any]:
    scope = _CURRENT.get()
    return {k: scope.fields[k] for k in LOG_FIELDS if k in scope.fields} if scope is not None else {}


def delivery_kwarg() -> dict[str, Any]:
    """`delivery=` for a job enqueued while handling a delivery, so the job's log lines carry its id too."""
    delivery = log_fields().get("delivery")
    return {"delivery": str(delivery)} if delivery else {}


def record_request(result: ChatResult) -> Awaitable[None] | None:
    """The model client's `on_request` hook: the request is charged to the job that made it (the client awaits
    the charge before the answer is used)."""
    scope = _CURRENT.get()
    if scope is None:
        return None
    scope.requests.append(ModelRequest(result.model[:100], result.latency_s, result.usage.async_requests > 0,
                                       result.usage))
    return scope.charge(result.usage, result.charge_key) if scope.charge is not None else None


def note_review(report: ReviewReport) -> None:
    """Called by the review job once the report exists: the ledger's files and findings columns."""
    scope = _CURRENT.get()
    if scope is None:
        return
    findings = [a.finding for a in report.placement.inline] + list(report.placement.outside)
    scope.report = ReportFacts(files_reviewed=report.files_reviewed, files_skipped=len(report.skipped),
                               comments=len(report.placement.inline),
                               findings={s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES})


def watch_port(port: P) -> P:
    """Remember a GitHub port so its last rate-limit headers are reported when the job ends."""
    scope = _CURRENT.get()
    if scope is not None:
        scope.ports.append(port)
    return port
