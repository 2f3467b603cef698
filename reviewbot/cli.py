"""The `reviewbot` command: serve, worker, review, audit, eval, setup, doctor, redeliver, config, usage."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from reviewbot.app import commands as app_commands
from reviewbot.cli_precision import add_precision_commands, run_precision_command
from reviewbot.errors import ConfigError, ReviewbotError
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
    add_precision_commands(sub)  # audit, eval (issue 10)
    setup = sub.add_parser("setup", help="create the GitHub App from app.yml and write its settings to .env")
    setup.add_argument("--org", help="create the App for this organisation (default: your personal account)")
    setup.add_argument("--name", help="the App's name on GitHub (default: the one in app.yml)")
    setup.add_argument("--public-url", help="where GitHub sends webhooks (default: REVIEWBOT_PUBLIC_URL)")
    setup.add_argument("--code", help="finish with the code GitHub's redirect carried, without a browser")
    setup.add_argument("--port", type=int, default=0, help="local port for GitHub's redirect (default: any)")
    sub.add_parser("doctor", help="check the configuration, the App's key, Redis and the model")
    redeliver = sub.add_parser("redeliver", help="ask GitHub to redeliver webhooks that never succeeded")
    redeliver.add_argument("--since", default="24h", help="how far back to look: 30m, 24h, 7d (default 24h)")
    redeliver.add_argument("--dry-run", action="store_true", help="only print what would be redelivered")
    config = sub.add_parser("config", help="the repository configuration file (.github/reviewbot.yml)")
    config_sub = config.add_subparsers(dest="config_command", required=True)
    config_sub.add_parser("schema", help="print the JSON Schema of .github/reviewbot.yml")
    validate = config_sub.add_parser("validate", help="check a .github/reviewbot.yml (exit 1 when invalid)")
    validate.add_argument("file", type=Path)
    usage = sub.add_parser("usage", help="what reviews cost, per repository, from the usage ledger")
    usage.add_argument("--since", default="7d", help="a span (7d, 24h, 2w) or a date (2026-10-01); default 7d")
    usage.add_argument("--repo", help="only this repository (owner/name)")
    usage.add_argument("--format", choices=["table", "csv", "json"], default="table")
    usage.add_argument("--records", action="store_true", help="export the ledger's records instead of totals")
    args = parser.parse_args(argv)
    try:
        if args.command == "config":
            return config_command(args.config_command, getattr(args, "file", None))
        if args.command == "doctor":
            return app_commands.doctor_command()
        settings = Settings.load()
        quiet = args.command in ("review", "usage", "audit", "eval")
        setup_logging(settings.secrets, logging.WARNING if quiet else logging.INFO, settings.log_format)
        if args.command == "serve":
            return serve_command(settings, args.host, args.port)
        if args.command == "worker":
            return worker_command(settings)
        if args.command == "setup":
            return app_commands.setup_command(settings, org=args.org, name=args.name, public_url=args.public_url,
                                              code=args.code, port=args.port)
        if args.command == "redeliver":
            return app_commands.redeliver_command(settings, args.since, args.dry_run)
        if args.command == "usage":
            return _usage(settings, args)
        if args.command in ("audit", "eval"):
            return run_precision_command(settings, args)
        from reviewbot.cli_review import review_command

        return review_command(settings, args.repo, args.base, args.head, args.format, args.dry_run)
    except ReviewbotError as exc:
        print(f"reviewbot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def config_command(command: str, path: Path | None) -> int:
    """`config schema` prints the published schema; `config validate FILE` is for CI."""
    from reviewbot.review.config import json_schema, parse_config

    if command == "schema":
        print(json_schema())
        return 0
    assert path is not None
    try:
        text = path.read_text()
    except OSError as exc:
        print(f"reviewbot: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 1
    errors = parse_config(text, source=str(path)).errors
    for error in errors:
        print(error, file=sys.stderr)
    if not errors:
        print(f"{path}: valid")
    return 1 if errors else 0
def _usage(settings: Settings, args: argparse.Namespace) -> int:
    from reviewbot.cli_usage import usage_command

    redis_url, embedded = _redis_url(settings)
    try:
        return usage_command(settings, redis_url, args.since, args.repo, args.format, args.records)
    finally:
        if embedded is not None:
            embedded.stop()


def _redis_url(settings: Settings) -> tuple[str, EmbeddedRedis | None]:
    """REDIS_URL when set (it must answer), else the embedded server under the data dir (started or joined)."""
    if settings.redis_url:
        _wait_for_redis(settings.redis_url)
        return settings.redis_url, None
    embedded = EmbeddedRedis(settings.data_dir)
    return embedded.start(), embedded


def _wait_for_redis(url: str, seconds: float = 5.0) -> None:
    """A clear error instead of a traceback when REDIS_URL does not answer at start (it may be starting too)."""
    from redis import Redis
    from redis.exceptions import RedisError

    deadline = time.monotonic() + seconds
    while True:
        try:
            with Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2) as client:
                client.ping()
                return
        except (RedisError, OSError) as exc:
            if time.monotonic() > deadline:
                raise ConfigError(f"the Redis at REDIS_URL does not answer ({type(exc).__name__}): start it, or "
                                  "unset REDIS_URL to use the embedded one") from None
            time.sleep(0.5)


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
    setup = app_commands.setup_for_serve(settings, host, port)
    app = create_app(settings, redis_url, run_worker=run_worker, setup=setup, listen_host=host)
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


def _exit_quietly(signum: int, frame: object) -> None:
    raise SystemExit(0)


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
