"""The Starlette app: webhook intake and health; clients are made in the lifespan and nothing slow runs here."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from arq import create_pool
from arq.connections import RedisSettings
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from reviewbot.app.identity import remember_slug
from reviewbot.observe.web import observe_routes, observed_webhook
from reviewbot.queue import functions
from reviewbot.settings import Settings
from reviewbot.webhooks.events import Accepted, Ignored, PayloadError, Ping, decide
from reviewbot.webhooks.intake import Intake
from reviewbot.webhooks.signature import verify

if TYPE_CHECKING:
    from reviewbot.app.setup.pages import SetupPages

log = logging.getLogger(__name__)
MAX_BODY = 25 * 1024 * 1024  # GitHub never sends more than 25 MB


class BodyTooLarge(Exception):
    pass


def create_app(settings: Settings, redis_url: str, *, run_worker: bool = False,
               worker_ctx: dict[str, Any] | None = None, setup: SetupPages | None = None,
               listen_host: str = "127.0.0.1") -> Starlette:
    """The web app; with `run_worker` the arq worker runs in this process too (the embedded, one-command mode).
    `listen_host` is where uvicorn listens: off loopback, the dashboard needs REVIEWBOT_DASHBOARD_TOKEN."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        rs = RedisSettings.from_dsn(redis_url)
        rs.conn_timeout, rs.conn_retries = 2, 3
        app.state.pool = await create_pool(rs, job_serializer=functions.serialize,
                                           job_deserializer=functions.deserialize)
        app.state.intake = Intake(app.state.pool, settings)
        await remember_slug(settings, app.state.pool)
        worker_task = None
        worker = None
        if run_worker:
            # Imported here so that a web-only process never loads the worker, the model client or the pipeline.
            from reviewbot.jobs.registry import service_worker

            worker = service_worker(settings, redis_url, handle_signals=False, ctx=worker_ctx)
            worker_task = asyncio.create_task(worker.async_run())
        try:
            yield
        finally:
            if worker is not None and worker_task is not None:
                worker_task.cancel()  # stops taking jobs; the running ones are close()'s
                with contextlib.suppress(asyncio.CancelledError):
                    await worker_task
                await worker.close()  # running reviews get the shutdown grace, the rest run again later
            await app.state.pool.aclose()

    async def webhook(request: Request) -> Response:
        return await receive(request, settings, request.app.state.intake)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})  # liveness only: Redis and configuration are /readyz

    async def index(request: Request) -> Response:
        return PlainTextResponse("reviewbot: POST GitHub webhooks to /webhooks/github\n")

    routes = [Route("/", index), Route("/healthz", healthz),
              Route("/webhooks/github", observed_webhook(webhook), methods=["POST"]),
              *observe_routes(settings, listen_host)]  # /readyz, /metrics, /dashboard
    if setup is not None:  # no App configured yet: the one-click setup pages
        routes += setup.routes()
    return Starlette(routes=routes, lifespan=lifespan)


async def receive(request: Request, settings: Settings, intake: Intake) -> Response:
    """Verify, parse, decide, store, answer: no GitHub or model call happens here."""
    secret = settings.github_webhook_secret
    if not secret:
        return _error(503, "reviewbot is not configured yet: set GITHUB_WEBHOOK_SECRET and the App credentials")
    try:
        body = await _read_body(request)
    except BodyTooLarge:
        return _error(413, "payload larger than 25 MB")
    if not verify(secret, body, request.headers.get("x-hub-signature-256")):
        return _error(401, "missing or invalid X-Hub-Signature-256")
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        return _error(415, "webhooks must be sent as application/json")
    event = request.headers.get("x-github-event", "")
    if not event:
        return _error(400, "missing X-GitHub-Event header")
    delivery = request.headers.get("x-github-delivery", "")[:100]
    try:
        payload = json.loads(body)
        if not isinstance(payload, dict):
            raise PayloadError("the payload must be a JSON object")
        decision = decide(event, payload, await intake.names())
    except (ValueError, RecursionError) as exc:
        return _error(400, f"malformed payload: {str(exc)[:200]}")
    except (RedisError, OSError) as exc:
        return _unavailable(delivery, exc)
    if isinstance(decision, Ping):
        return JSONResponse({"status": "pong"})
    if isinstance(decision, Ignored | Accepted):
        status = "ignored" if isinstance(decision, Ignored) else "accepted"
        log.info("webhook %s", status, extra={"delivery": delivery, "event": event, "reason": decision.reason})
        return JSONResponse({"status": status, "reason": decision.reason}, status_code=202)
    try:
        outcome = await intake.store(decision, delivery)  # the dedup and the job: one atomic step
    except (RedisError, OSError) as exc:
        return _unavailable(delivery, exc)
    log.info("webhook stored", extra={"delivery": delivery, "event": event, **outcome.body})
    return JSONResponse(outcome.body, status_code=outcome.status)


def _unavailable(delivery: str, exc: BaseException) -> JSONResponse:
    log.error("Redis unavailable; answering 503", extra={"delivery": delivery, "error": type(exc).__name__})
    return _error(503, "queue unavailable; redeliver this webhook later")


async def _read_body(request: Request) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)
