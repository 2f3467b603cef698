"""The /setup pages: one button creates the GitHub App from app.yml, the callback saves its credentials.

Only someone holding the key printed at startup sees the form; the `state` it carries is random, kept here,
single use and short-lived, so a forged callback cannot plant another App's credentials. No secret is ever
rendered, and the pages forbid framing, referrers and scripts as the dashboard does, whose look they share.
"""

from __future__ import annotations

import json
import secrets
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from reviewbot.app.app_api import CreatedApp, convert_manifest
from reviewbot.app.setup import html
from reviewbot.app.setup.manifest import build_manifest, creation_url, find_manifest, save_app, webhook_url
from reviewbot.errors import ConfigError, ReviewbotError
from reviewbot.observe.access import secured
from reviewbot.settings import Settings

STATE_TTL_S = 3600.0  # GitHub's code lives an hour too


class SetupStates:
    """CSRF states: issued with the form, accepted once, forgotten after an hour."""

    def __init__(self, ttl: float = STATE_TTL_S) -> None:
        self.ttl = ttl
        self._issued: dict[str, float] = {}

    def issue(self) -> str:
        now = time.monotonic()
        self._issued = {s: t for s, t in self._issued.items() if t > now}
        state = secrets.token_urlsafe(32)
        self._issued[state] = now + self.ttl
        return state

    def take(self, state: str) -> bool:
        expires = self._issued.pop(state, None)
        return expires is not None and expires > time.monotonic()


class SetupPages:
    def __init__(self, settings: Settings, *, env_path: Path = Path(".env"), manifest_path: Path | None = None,
                 key: str | None = None, on_done: Callable[[CreatedApp], None] | None = None) -> None:
        self.settings = settings
        self.env_path = env_path
        self.manifest_path = manifest_path
        self.key = key or secrets.token_urlsafe(16)
        self.states = SetupStates()
        self.created: CreatedApp | None = None
        self.on_done = on_done

    def address(self, base_url: str) -> str:
        return f"{base_url.rstrip('/')}/setup?{urllib.parse.urlencode({'key': self.key})}"

    def routes(self) -> list[Route]:
        return [Route("/setup", self.page), Route("/setup/callback", self.callback)]

    async def page(self, request: Request) -> Response:
        if not secrets.compare_digest(request.query_params.get("key", ""), self.key):
            return self._reply(403, html.message(
                "Use the setup link reviewbot printed when it started.", "Setup link needed"))
        if self.created is not None:
            return self._reply(409, html.created(self.created, self.env_path, done_before=True))
        org = request.query_params.get("org", "").strip() or None
        name = request.query_params.get("name", "").strip()[:34] or None
        base = self._base(request)
        public = self.settings.public_url or base
        try:
            manifest = build_manifest(self.manifest_path or find_manifest(), public_url=public,
                                      redirect_url=f"{base}/setup/callback", name=name,
                                      push_fixes=self.settings.fixes == "push")
            action = creation_url(self.settings.github_url, self.states.issue(), org)
        except ConfigError as exc:
            return self._reply(400, html.message(str(exc), "Setup cannot start"))
        return self._reply(200, html.form(
            key=self.key, org=org or "", name=str(manifest.get("name") or ""), action=action,
            manifest=json.dumps(manifest), hook=webhook_url(public), public_url_set=bool(self.settings.public_url)))

    async def callback(self, request: Request) -> Response:
        if self.created is not None:
            return self._reply(409, html.message(
                "The GitHub App is already created: restart reviewbot.", "Already set up"))
        code, state = request.query_params.get("code", ""), request.query_params.get("state", "")
        if not state or not self.states.take(state):
            return self._reply(400, html.message(
                "This setup link has expired or was already used. Start again from the link reviewbot printed.",
                "Setup link expired"))
        if not code:
            return self._reply(400, html.message("GitHub sent no code back. Start again.", "No code from GitHub"))
        try:
            app = await convert_manifest(self.settings.github_api_url, code)
            save_app(app, self.env_path, self.settings.data_dir)
        except (ReviewbotError, OSError) as exc:
            return self._reply(502, html.message(f"The App could not be saved: {exc}. Codes work once, for an "
                                                 "hour: start again.", "App not saved"))
        self.created = app
        if self.on_done is not None:
            self.on_done(app)
        return self._reply(200, html.created(app, self.env_path, done_before=False))

    def _base(self, request: Request) -> str:
        """Where this browser reached us: the public URL when it came through it, else its own address."""
        base = str(request.base_url).rstrip("/")
        public = self.settings.public_url
        if public and urllib.parse.urlsplit(public).netloc == urllib.parse.urlsplit(base).netloc:
            return public
        return base

    def _reply(self, status: int, body: str) -> Response:
        # The dashboard's headers, with GitHub allowed as a form target: the manifest is posted there.
        return secured(HTMLResponse(body, status_code=status), self.settings.github_url)
