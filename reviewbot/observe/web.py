"""Operator routes (`/metrics`, `/readyz`, the dashboard) and the webhook counter around the intake."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable

from redis.exceptions import RedisError
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from reviewbot.observe.access import authorized, is_loopback
from reviewbot.observe.dashboard import dashboard_routes
from reviewbot.observe.exposition import CONTENT_TYPE, render
from reviewbot.observe.jobcontext import bind
from reviewbot.observe.metrics import WEBHOOKS, Batch
from reviewbot.settings import Settings

Endpoint = Callable[[Request], Awaitable[Response]]
# The event header is counted even when the signature is wrong: only known names become label values.
KNOWN_EVENTS = frozenset({
    "pull_request", "issue_comment", "check_run", "check_suite", "ping", "installation",
    "installation_repositories", "installation_target", "push", "pull_request_review",
    "pull_request_review_comment", "pull_request_review_thread", "github_app_authorization", "meta", "repository",
})
REFUSED = {400: "malformed", 401: "bad_signature", 413: "too_large", 415: "not_json", 503: "unavailable"}


def observe_routes(settings: Settings, listen_host: str) -> list[BaseRoute]:
    """`/readyz`, `/metrics` and the dashboard; `listen_host` decides whether the dashboard and the metrics need a
    token: off loopback without REVIEWBOT_DASHBOARD_TOKEN both are refused (metrics name installations and costs)."""
    exposed = not is_loopback(listen_host)

    async def readyz(request: Request) -> Response:
        missing = settings.missing_for_github() + settings.missing_for_model()
        try:
            await asyncio.wait_for(request.app.state.pool.ping(), timeout=2)
            redis = "ok"
        except (RedisError, OSError, TimeoutError):
            redis = "unreachable"
        ready = redis == "ok" and not missing
        body: dict[str, object] = {"status": "ready" if ready else "not ready", "redis": redis,
                                   "config": "incomplete" if missing else "ok"}
        if missing:
            body["missing"] = missing  # variable names only, never values
        return JSONResponse(body, status_code=200 if ready else 503)

    async def metrics(request: Request) -> Response:
        # With a dashboard token set, Prometheus sends it too (scrape config `authorization: credentials`).
        if exposed and settings.dashboard_token is None:
            return PlainTextResponse("reviewbot listens on an address other machines can reach: set "
                                     "REVIEWBOT_DASHBOARD_TOKEN and send it as a Bearer header\n", status_code=403)
        if not authorized(request, settings.dashboard_token):
            return PlainTextResponse("send the dashboard token as a Bearer header\n", status_code=401)
        return Response(await render(request.app.state.pool), media_type=CONTENT_TYPE)

    return [Route("/readyz", readyz), Route("/metrics", metrics),
            *dashboard_routes(settings, exposed=exposed)]


def observed_webhook(endpoint: Endpoint) -> Endpoint:
    """The webhook endpoint, with the delivery id on its log lines and a count by event and outcome
    written after the answer is sent (so Redis trouble never slows or fails the answer)."""

    async def observed(request: Request) -> Response:
        raw_event = request.headers.get("x-github-event", "")
        with bind(delivery=request.headers.get("x-github-delivery", "")[:100], event=raw_event[:50]):
            response = await endpoint(request)
        outcome = webhook_outcome(response)
        batch = Batch()
        batch.inc(WEBHOOKS, event=raw_event if raw_event in KNOWN_EVENTS else "other", outcome=outcome)
        if response.background is None:
            response.background = BackgroundTask(batch.send, request.app.state.pool)
        return response

    return observed


def webhook_outcome(response: Response) -> str:
    """The answer's `status` (queued, duplicate, ignored, …), or why it was refused."""
    if response.status_code in REFUSED:
        return REFUSED[response.status_code]
    try:
        status = json.loads(bytes(response.body)).get("status")
    except (ValueError, AttributeError):
        status = None
    return re.sub(r"[^a-z_]", "_", str(status).lower()) if status else str(response.status_code)
