"""The `reviewbot` command: serve, worker, review, usage."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from reviewbot.errors import ReviewbotError
from reviewbot.logs import setup_logging
from reviewbot.queue.embedded import EmbeddedRedis
from reviewbot.settings import Settings

log = logging.getLogger("reviewbot")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="reviewbot", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the web app (and, with the embedded Redis, the worker)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    sub.add_parser("worker", help="run a review worker")
    review = sub.add_parser("review", help="review local git changes without GitHub")
    review.add_argument("--repo", type=Path, default=Path("."))
    review.add_argument("--base", required=True, help="the branch or commit the change goes into")
    review.add_argument("--head", default="HEAD")
    review.add_argument("--format", choices=["json", "markdown"], default="markdown")
    review.add_argument("--dry-run", action="store_true", help="print the prompt plan; call no model")
    usage = sub.add_parser("usage", help="what reviews cost, per repository, from the usage ledger")
    usage.add_argument("--since", default="7d", help="a span (7d, 24h, 2w) or a date (2026-10-01); default 7d")
    usage.add_argument("--repo", help="only this repository (owner/name)")
    usage.add_argument("--format", choices=["table", "csv", "json"], default="table")
    usage.add_argument("--records", action="store_true", help="export the ledger's records instead of totals")
    args = parser.parse_args(argv)
    try:
        settings = Settings.load()
        quiet = args.command in ("review", "usage")
        setup_logging(settings.secrets, logging.WARNING if quiet else logging.INFO, settings.log_format)
        if args.command == "serve":
            return serve_command(settings, args.host, args.port)
        if args.command == "worker":
            return worker_command(settings)
        if args.command == "usage":
            return _usage(settings, args)
        from reviewbot.cli_review import review_command

        return review_command(settings, args.repo, args.base, args.head, args.format, args.dry_run)
    except ReviewbotError as exc:
        print(f"reviewbot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _usage(settings: Settings, args: argparse.Namespace) -> int:
    from reviewbot.cli_usage import usage_command

    redis_url, embedded = _redis_url(settings)
    try:
        return usage_command(settings, redis_url, args.since, args.repo, args.format, args.records)
    finally:
        if embedded is not None:
            embedded.stop()


def _redis_url(settings: Settings) -> tuple[str, EmbeddedRedis | None]:
    """REDIS_URL when set, else the embedded server under the data dir (started or joined)."""
    if settings.redis_url:
        return settings.redis_url, None
    embedded = EmbeddedRedis(settings.data_dir)
    return embedded.start(), embedded


def serve_command(settings: Settings, host: str, port: int) -> int:
    import uvicorn

    from reviewbot.webhooks.server import create_app

    redis_url, embedded = _redis_url(settings)
    missing = settings.missing_for_github() + settings.missing_for_model()
    if missing:
        print("reviewbot is running but not configured yet. Set these (in the environment or .env):\n  "
              + "\n  ".join(missing)
              + f"\nUntil then webhooks to http://{host}:{port}/webhooks/github answer 503.", file=sys.stderr)
    run_worker = embedded is not None and not missing
    if embedded is not None and not run_worker:
        log.warning("the worker is not started until the configuration above is complete")
    app = create_app(settings, redis_url, run_worker=run_worker, listen_host=host)
    try:
        uvicorn.run(app, host=host, port=port, log_config=None, timeout_graceful_shutdown=30)
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


def worker_command(settings: Settings) -> int:
    from reviewbot.queue.worker import make_worker

    settings.require(settings.missing_for_github() + settings.missing_for_model(), "the worker")
    redis_url, embedded = _redis_url(settings)
    try:
        make_worker(settings, redis_url).run()
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
