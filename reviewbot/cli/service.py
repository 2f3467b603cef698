"""`reviewbot serve` (web app, plus the worker and Redis embedded) and `reviewbot worker`."""

from __future__ import annotations

import logging
import signal
import sys

from reviewbot.cli import github_app
from reviewbot.cli.common import Subparsers, load_settings, redis_url
from reviewbot.settings import Settings

log = logging.getLogger("reviewbot")


def add(sub: Subparsers) -> None:
    serve = sub.add_parser(
        "serve", help="run the web app (and, with the embedded Redis, the worker)",
        description="Run the web app: webhooks at /webhooks/github, /setup until a GitHub App is configured, the "
                    "dashboard, /metrics and /readyz. Without REDIS_URL it starts an embedded Redis under the data "
                    "dir and a worker in the same process. `./dev run` runs this.")
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to listen on; 0.0.0.0 for every interface (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="the port to listen on (default: 8000)")
    serve.set_defaults(handler=lambda args: serve_command(load_settings(quiet=False), args.host, args.port))
    worker = sub.add_parser(
        "worker", help="run a review worker",
        description="Run a worker that takes reviews, commands and audits from Redis (REDIS_URL, or the embedded "
                    "one under the data dir); run several, on one host or many, to review more at once. Needs the "
                    "GitHub App's and the model's settings.")
    worker.set_defaults(handler=lambda args: worker_command(load_settings(quiet=False)))


def serve_command(settings: Settings, host: str, port: int) -> int:
    import uvicorn

    from reviewbot.webhooks.server import create_app

    _warn_unknown()
    url, embedded = redis_url(settings)
    missing = settings.missing_for_github() + settings.missing_for_model()
    if missing:
        print("reviewbot is running but not configured yet. Set these (in the environment or .env):\n  "
              + "\n  ".join(missing)
              + f"\nUntil then webhooks to http://{host}:{port}/webhooks/github answer 503.", file=sys.stderr)
    run_worker = embedded is not None and not missing
    if embedded is not None and not run_worker:
        log.warning("the worker is not started until the configuration above is complete")
    setup = github_app.setup_for_serve(settings, host, port)
    app = create_app(settings, url, run_worker=run_worker, setup=setup, listen_host=host)
    # uvicorn re-raises SIGTERM once it has shut down gracefully; with the default handler the process would die
    # there, before `finally`, and leave the embedded Redis running.
    previous = signal.signal(signal.SIGTERM, _exit_quietly)
    try:
        uvicorn.run(app, host=host, port=port, log_config=None, timeout_graceful_shutdown=30, access_log=False)
    finally:
        signal.signal(signal.SIGTERM, previous)
        if embedded is not None:
            embedded.stop()
    return 0


def _warn_unknown() -> None:
    """A misspelled variable leaves its setting at the default without a word: say so where a newcomer looks."""
    import os
    from pathlib import Path

    from reviewbot.settings.envcheck import describe, unknown_in

    if unknown := unknown_in(os.environ, Path(".env")):
        print(f"reviewbot: warning: {describe(unknown)}", file=sys.stderr)


def _exit_quietly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def worker_command(settings: Settings) -> int:
    from reviewbot.jobs.registry import service_worker

    _warn_unknown()
    settings.require(settings.missing_for_github() + settings.missing_for_model(), "the worker")
    url, embedded = redis_url(settings)
    try:
        service_worker(settings, url).run()
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


