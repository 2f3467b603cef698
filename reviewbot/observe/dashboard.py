"""`/dashboard`: recent reviews, cost and reviews per day, cache hit ratio, queue depth, failures, audits and what
people did with the findings."""

from __future__ import annotations

import time
import urllib.parse
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from jinja2 import Environment
from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from reviewbot.audit.service_record import ListedAudit
from reviewbot.audit.service_state import AuditStore
from reviewbot.observe.access import COOKIE, authorized, secured, sign_in, token_matches
from reviewbot.observe.charts import cache_chart, cost_chart, outcome_chart
from reviewbot.observe.exposition import QueueDepth, queue_depth
from reviewbot.observe.ledger import FAILED, Day, Entry, Ledger
from reviewbot.observe.logs import REDACTOR, Redactor
from reviewbot.observe.theme import page_templates, stylesheet_route
from reviewbot.outcomes.outcome_store import OutcomeStore
from reviewbot.outcomes.rates import RepoRates, per_repository
from reviewbot.settings import Settings
from reviewbot.state.learnings_store import Learnings, Stored

DAYS = 30
RECENT = 50
SCANNED = 500  # the newest records searched for failures
MAX_FORM = 4096
LEARNINGS = 50
AUDITS = 20


@dataclass(frozen=True)
class AuditRow:
    started: str
    repo: str
    branch: str
    scope: str
    status: str
    chunks: int
    settled: int  # chunks audited or given up
    not_audited: int
    spent_usd: float
    estimate_usd: float
    findings: int
    minutes_left: int | None  # running audits: at the pace so far
    published: str = ""  # where the findings went (code scanning, the tracking issue)


def audit_row(audit: ListedAudit, now: float) -> AuditRow:
    record = audit.record
    chunks = len(record.chunks)
    settled = audit.chunks_done + audit.chunks_failed
    left = None
    if record.status == "running" and settled:
        left = round((now - float(record.created)) / settled * (chunks - settled) / 60)
    return AuditRow(datetime.fromtimestamp(float(record.created), UTC).strftime("%m-%d %H:%M"), record.repo,
                    record.branch, ", ".join(record.paths) or "all", record.status, chunks, settled,
                    audit.chunks_failed, float(audit.spent_usd or 0.0), float(record.estimate_usd),
                    len(record.findings), left, record.published)


@dataclass(frozen=True)
class View:
    recent: list[Entry]
    failures: list[Entry]
    days: list[Day]
    depth: QueueDepth
    generated: str
    learnings: list[Stored] = field(default_factory=list)  # remembered dismissals, newest first
    audits: list[AuditRow] = field(default_factory=list)  # running and past audits, newest first
    outcomes: list[RepoRates] = field(default_factory=list)  # what people did with findings, per repository

    @property
    def totals(self) -> Day:
        d = self.days
        return Day(f"last {len(d)} days", runs=sum(x.runs for x in d), reviews=sum(x.reviews for x in d),
                   failures=sum(x.failures for x in d), cost_usd=sum(x.cost_usd for x in d),
                   saved_usd=sum(x.saved_usd for x in d), prompt_tokens=sum(x.prompt_tokens for x in d),
                   cached_tokens=sum(x.cached_tokens for x in d), fixes=sum(x.fixes for x in d))


async def load_view(redis: Any, settings: Settings, now: float | None = None) -> View:
    now = time.time() if now is None else now
    ledger = Ledger(redis, settings.ledger_days)
    newest = await ledger.recent(SCANNED)
    return View(recent=newest[:RECENT], failures=[e for e in newest if e.outcome in FAILED][:20],
                days=await ledger.per_day(DAYS, now), depth=await queue_depth(redis, now),
                generated=datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d %H:%M UTC"),
                learnings=sorted(await Learnings(redis, settings.learning_ttl_days).everywhere(now),
                                 key=lambda s: -s.at)[:LEARNINGS],
                audits=[audit_row(r, now) for r in await AuditStore(redis).recent(AUDITS)],
                outcomes=per_repository(await OutcomeStore(redis).records(since=now - DAYS * 86_400, now=now)))


def web_url(api_url: str) -> str:
    """github.com for api.github.com, https://HOST for GitHub Enterprise's https://HOST/api/v3."""
    if api_url.rstrip("/") == "https://api.github.com":
        return "https://github.com"
    return api_url.rstrip("/").removesuffix("/api/v3")


def templates(settings: Settings) -> Environment:
    env = page_templates()
    base = web_url(settings.github_api_url)
    env.globals["pr_url"] = lambda repo, pr: f"{base}/{urllib.parse.quote(repo, safe='/')}/pull/{int(pr)}"
    # Reasons come from exceptions: mask every configured secret and issued token, as the logs do.
    env.filters["scrub"] = lambda text: Redactor([*settings.secrets, *REDACTOR.secrets]).scrub(str(text))
    return env


def dashboard_routes(settings: Settings, exposed: bool) -> list[BaseRoute]:
    """`exposed`: the service listens on an address other machines reach; then a token is required."""
    env = templates(settings)
    token = settings.dashboard_token
    disabled = exposed and token is None

    def page(name: str, status: int = 200, **values: Any) -> Response:
        return secured(HTMLResponse(env.get_template(name).render(**values), status_code=status))

    def refused(request: Request) -> Response | None:
        if disabled:
            return page("message.html", 403, title="Dashboard disabled", message=(
                "reviewbot listens on an address other machines can reach and REVIEWBOT_DASHBOARD_TOKEN is not set, "
                "so the dashboard is off. Set REVIEWBOT_DASHBOARD_TOKEN (at least 16 characters) to turn it on."))
        if not authorized(request, token):
            response = page("login.html", 401, error=False)
            response.headers["WWW-Authenticate"] = 'Bearer realm="reviewbot"'
            return response
        return None

    async def dashboard(request: Request) -> Response:
        if (refusal := refused(request)) is not None:
            return refusal
        try:
            view = await load_view(request.app.state.pool, settings)
        except (RedisError, OSError):
            return page("message.html", 503, title="Redis unavailable",
                        message="The ledger lives in Redis, which did not answer. /readyz says more.")
        return page("dashboard.html", view=view, totals=view.totals, cost_svg=cost_chart(view.days),
                    cache_svg=cache_chart(view.days), model=settings.model, outcome_chart=outcome_chart,
                    signed_in=token is not None)

    async def login(request: Request) -> Response:
        if disabled or token is None:
            return refused(request) or secured(RedirectResponse("/dashboard", status_code=303))
        if request.method == "GET":
            return page("login.html", error=False)
        given = urllib.parse.parse_qs((await _small_body(request)).decode(errors="replace")).get("token", [""])[0]
        if not token_matches(given, token):
            return page("login.html", 401, error=True)
        response = RedirectResponse("/dashboard", status_code=303)
        sign_in(response, request, token)
        return secured(response)

    async def logout(request: Request) -> Response:
        response = RedirectResponse("/dashboard/login", status_code=303)
        response.delete_cookie(COOKIE, path="/dashboard")
        return secured(response)

    return [Route("/dashboard", dashboard), Route("/dashboard/login", login, methods=["GET", "POST"]),
            Route("/dashboard/logout", logout, methods=["POST"]), stylesheet_route()]


async def _small_body(request: Request) -> bytes:
    """The login form is one field; anything longer is cut, not read into memory."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            break
    return body[:MAX_FORM]
