"""`reviewbot setup`, `doctor` and `redeliver` (the GitHub App's own commands), and the setup link `serve` prints.

asyncio and the GitHub, HTTP and web modules are imported inside the commands so that `reviewbot review` starts fast.
"""

from __future__ import annotations

import dataclasses
import logging
import sys
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from reviewbot.cli.common import Subparsers, load_settings
from reviewbot.cli.durations import parse_span
from reviewbot.errors import ConfigError
from reviewbot.observe.logs import setup_logging
from reviewbot.settings import Settings

if TYPE_CHECKING:
    from reviewbot.app.app_api import CreatedApp
    from reviewbot.app.setup.pages import SetupPages
    from reviewbot.cli.doctor import Check
    from reviewbot.settings.envcheck import Unknown



def add(sub: Subparsers) -> None:
    setup = sub.add_parser("setup", help="create the GitHub App from app.yml and write its settings to .env")
    setup.add_argument("--org", help="create the App for this organisation (default: your personal account)")
    setup.add_argument("--name", help="the App's name on GitHub (default: the one in app.yml)")
    setup.add_argument("--public-url", help="where GitHub sends webhooks (default: REVIEWBOT_PUBLIC_URL)")
    setup.add_argument("--code", help="finish with the code GitHub's redirect carried, without a browser")
    setup.add_argument("--port", type=int, default=0, help="local port for GitHub's redirect (default: any)")
    setup.set_defaults(handler=lambda args: setup_command(load_settings(quiet=False), org=args.org, name=args.name,
                                                          public_url=args.public_url, code=args.code,
                                                          port=args.port))
    doctor = sub.add_parser(
        "doctor", help="check the configuration, the App's key, Redis and the model",
        description="Try every dependency for real and print a table of what works and what to fix: the "
                    "environment and .env (every bad value, and names nothing reads), the GitHub App and its "
                    "installations, webhooks, Redis and today's budgets, the model catalogue and the model. Exit "
                    "status 0 when no check failed (warnings are fine).")
    doctor.set_defaults(handler=lambda args: doctor_command())
    redeliver = sub.add_parser("redeliver", help="ask GitHub to redeliver webhooks that never succeeded")
    redeliver.add_argument("--since", default="24h", help="how far back to look: 30m, 24h, 7d (default 24h)")
    redeliver.add_argument("--dry-run", action="store_true", help="only print what would be redelivered")
    redeliver.set_defaults(handler=lambda args: redeliver_command(load_settings(quiet=False), args.since,
                                                                  args.dry_run))


def setup_for_serve(settings: Settings, host: str, port: int, out: TextIO | None = None) -> SetupPages | None:
    """With no App configured, the /setup pages, whose private link is printed."""
    from reviewbot.app.setup.pages import SetupPages

    if settings.missing_for_github():
        pages = SetupPages(settings)
        local = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host  # noqa: S104
        print(f"No GitHub App yet. Create one in a click: {pages.address(f'http://{local}:{port}')}",
              file=out or sys.stderr)
        return pages
    return None


def setup_command(settings: Settings, *, org: str | None, name: str | None, public_url: str | None,
                  code: str | None, port: int = 0, env_path: Path = Path(".env"), out: TextIO | None = None) -> int:
    """Create the App: exchange `code`, or serve the setup page on 127.0.0.1 until GitHub calls back."""
    import asyncio

    from reviewbot.app.app_api import convert_manifest
    from reviewbot.app.setup.manifest import save_app
    from reviewbot.app.setup.pages import SetupPages

    out = out or sys.stdout
    if not settings.missing_for_github():
        print(f"Note: this replaces the GitHub App configured now (GITHUB_APP_ID={settings.github_app_id}).", file=out)
    if public_url:
        checked = Settings.from_mapping({"REVIEWBOT_PUBLIC_URL": public_url}).public_url
        settings = dataclasses.replace(settings, public_url=checked)
    if code:
        app = asyncio.run(convert_manifest(settings.github_api_url, code))
        save_app(app, env_path, settings.data_dir)
        return _created(app, env_path, out)
    pages = SetupPages(settings, env_path=env_path)
    created = asyncio.run(_serve_setup(pages, port, {"org": org or "", "name": name or ""}, out))
    return _created(created, env_path, out) if created is not None else 1


async def _serve_setup(pages: SetupPages, port: int, query: dict[str, str], out: TextIO) -> CreatedApp | None:
    import asyncio
    import socket

    import uvicorn
    from starlette.applications import Starlette

    from reviewbot.observe.theme import stylesheet_route

    done = asyncio.Event()
    pages.on_done = lambda _app: done.set()
    listener = socket.socket()
    try:
        listener.bind(("127.0.0.1", port))
    except OSError as exc:
        listener.close()
        raise ConfigError(f"cannot listen on 127.0.0.1:{port} for GitHub's redirect ({exc.strerror}); "
                          "try another --port") from None
    bound = listener.getsockname()[1]
    app = Starlette(routes=[*pages.routes(), stylesheet_route()])  # serve has it with the dashboard
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False))
    serving = asyncio.create_task(server.serve(sockets=[listener]))
    extra = urllib.parse.urlencode({k: v for k, v in query.items() if v})
    link = pages.address(f"http://127.0.0.1:{bound}") + (f"&{extra}" if extra else "")
    print(f"Open this link in a browser on this machine to create the GitHub App:\n  {link}", file=out, flush=True)
    waiting = asyncio.create_task(done.wait())
    await asyncio.wait({serving, waiting}, return_when=asyncio.FIRST_COMPLETED)
    server.should_exit = True
    await serving
    waiting.cancel()
    return pages.created


def _created(app: CreatedApp, env_path: Path, out: TextIO) -> int:
    print(f"Created the GitHub App {app.name} (id {app.id}); its settings are in {env_path}.\n"
          f"Next: install it on your repositories: {app.install_url}\n"
          "Then (re)start reviewbot (./dev run) and check it with `reviewbot doctor`.", file=out)
    return 0


def doctor_command(environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env"),
                   out: TextIO | None = None) -> int:
    """Print the table of checks; exit status 0 only when nothing failed."""
    import asyncio
    import os

    from reviewbot.cli.doctor import exit_code, render
    from reviewbot.settings.envcheck import check_values, read_dotenv, unknown_in

    process = dict(os.environ if environ is None else environ)
    checked = check_values(read_dotenv(env_file) | process)  # the environment wins, as in Settings.load
    unknown = unknown_in(process, env_file)
    if checked.settings is not None:
        setup_logging(checked.settings.secrets, logging.WARNING)
    checks = asyncio.run(_checks(checked.settings, list(checked.errors), unknown))
    print(render(checks), file=out or sys.stdout)
    return exit_code(checks)


async def _checks(settings: Settings | None, errors: list[str], unknown: list[Unknown]) -> list[Check]:
    import httpx

    from reviewbot.cli.doctor import configuration_check, run_checks

    configured = configuration_check(errors, unknown)
    if settings is None:
        return [configured]
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0, connect=5.0)) as http:
        return await run_checks(settings, http, configured)


def redeliver_command(settings: Settings, since: str, dry_run: bool, out: TextIO | None = None) -> int:
    import asyncio

    from reviewbot.app.app_api import AppApi
    from reviewbot.app.redeliver import redeliver

    window = parse_span(since)

    async def run() -> int:
        api = AppApi.from_settings(settings)
        try:
            return await redeliver(api, window, dry_run=dry_run, out=out or sys.stdout)
        finally:
            api.close()

    return asyncio.run(run())
