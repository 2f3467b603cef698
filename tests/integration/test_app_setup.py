"""One-click setup: the manifest form, the guarded callback, a usable .env, and the same from the terminal."""

from __future__ import annotations

import asyncio
import html
import io
import json
import re
import stat
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from reviewbot.app.app_api import AppApi
from reviewbot.app.setup.manifest import webhook_url
from reviewbot.app.setup.pages import SetupPages
from reviewbot.cli.github_app import setup_command, setup_for_serve
from reviewbot.cli.main import main
from reviewbot.errors import ConfigError
from reviewbot.observe.theme import STYLESHEET
from reviewbot.settings import Settings
from reviewbot.webhooks.server import create_app
from tests.conftest_fakes import APP_ID
from tests.fakes.github import FakeGitHub
from tests.fakes.server import ServedApp
from tests.helpers import deliver

PUBLIC = "https://bot.example.com"
APP_KEYS = ("GITHUB_APP_ID", "GITHUB_PRIVATE_KEY", "GITHUB_WEBHOOK_SECRET")
EXISTING_ENV = ('# my settings\nREVIEWBOT_MODEL=my-model\nGITHUB_PRIVATE_KEY="-----BEGIN OLD KEY-----\nabc\n'
                '-----END OLD KEY-----"\nEXTRA=1\n')


@pytest.fixture
def bare_env(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """A reviewbot with everything but the GitHub App."""
    return {k: v for k, v in env.items() if k not in APP_KEYS} | {"REVIEWBOT_DATA_DIR": str(tmp_path / "data")}


@pytest.fixture
def pages(bare_env: dict[str, str], tmp_path: Path) -> SetupPages:
    (tmp_path / ".env").write_text(EXISTING_ENV)
    settings = Settings.from_mapping(bare_env | {"REVIEWBOT_PUBLIC_URL": PUBLIC})
    return SetupPages(settings, env_path=tmp_path / ".env")


@pytest.fixture
def site(pages: SetupPages, bare_env: dict[str, str]) -> Iterator[httpx.Client]:
    with ServedApp(create_app(pages.settings, bare_env["REDIS_URL"], setup=pages), lifespan="on") as served, \
            httpx.Client(base_url=served.url, timeout=10) as client:
        yield client


def form_of(page: httpx.Response) -> tuple[str, str, dict[str, Any]]:
    """(form action, state, manifest) of the setup page."""
    action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', page.text)[1])  # type: ignore[index]
    manifest = json.loads(html.unescape(re.search(r'name="manifest" value="([^"]+)"', page.text)[1]))  # type: ignore[index]
    return action, action.split("state=", 1)[1], manifest


def test_the_setup_page_posts_the_manifest_to_github(site: httpx.Client, pages: SetupPages) -> None:
    assert site.get("/setup").status_code == 403  # only with the link printed at startup
    page = site.get(f"/setup?key={pages.key}")
    assert page.status_code == 200
    assert "form-action 'self' https://github.com" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY" and page.headers["referrer-policy"] == "no-referrer"
    assert f'<link rel="stylesheet" href="{STYLESHEET}">' in page.text and "<script" not in page.text
    action, state, manifest = form_of(page)
    assert action == f"https://github.com/settings/apps/new?state={state}" and len(state) >= 32
    assert manifest["hook_attributes"]["url"] == f"{PUBLIC}/webhooks/github" and manifest["url"] == PUBLIC
    assert manifest["redirect_url"] == f"{site.base_url}/setup/callback"
    assert manifest["default_permissions"]["pull_requests"] == "write" and manifest["public"] is False
    org_action, org_state, _ = form_of(site.get(f"/setup?key={pages.key}&org=acme"))
    assert org_action == f"https://github.com/organizations/acme/settings/apps/new?state={org_state}"


def test_the_callback_refuses_a_forged_or_reused_state(site: httpx.Client, pages: SetupPages,
                                                       fake_github: FakeGitHub, app_keypair: tuple[bytes, bytes],
                                                       tmp_path: Path) -> None:
    fake_github.add_manifest_code("code-1", app_keypair[0])
    assert site.get("/setup/callback?code=code-1&state=forged").status_code == 400
    _, state, _ = form_of(site.get(f"/setup?key={pages.key}"))
    assert site.get(f"/setup/callback?code=expired-code&state={state}").status_code == 502
    assert site.get(f"/setup/callback?code=code-1&state={state}").status_code == 400  # states work once
    assert (tmp_path / ".env").read_text() == EXISTING_ENV and "code-1" in fake_github.manifest_codes


def test_the_callback_writes_a_usable_env_and_the_service_starts_configured(
        site: httpx.Client, pages: SetupPages, fake_github: FakeGitHub, app_keypair: tuple[bytes, bytes],
        bare_env: dict[str, str], tmp_path: Path) -> None:
    fake_github.add_manifest_code("code-1", app_keypair[0])
    _, state, _ = form_of(site.get(f"/setup?key={pages.key}"))
    done = site.get(f"/setup/callback?code=code-1&state={state}")
    assert done.status_code == 200
    assert 'href="https://github.com/apps/reviewbot-test/installations/new"' in done.text
    assert done.headers["cache-control"] == "no-store"

    env_file = tmp_path / ".env"
    written = env_file.read_text()
    assert written.startswith("# my settings\nREVIEWBOT_MODEL=my-model\n") and "EXTRA=1" in written
    assert "OLD KEY" not in written and "GITHUB_CLIENT_ID=Iv1.fake" in written
    key_file = tmp_path / "data" / "reviewbot-test.private-key.pem"
    for path in (env_file, key_file):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert site.get(f"/setup?key={pages.key}").status_code == 409  # done: restart instead
    assert site.get(f"/setup/callback?code=code-1&state={state}").status_code == 409

    settings = Settings.load({k: v for k, v in bare_env.items() if k != "REVIEWBOT_MODEL"}, env_file)
    assert settings.missing_for_github() == [] and settings.github_app_id == str(APP_ID)
    assert settings.github_private_key == app_keypair[0].decode()
    for secret in (str(settings.github_webhook_secret), "fake-client-secret", "PRIVATE KEY"):
        assert secret not in done.text
    api = AppApi.from_settings(settings)
    try:
        assert asyncio.run(api.get_app())["id"] == APP_ID  # the JWT (issued by the client id) is accepted
    finally:
        api.close()
    with ServedApp(create_app(settings, bare_env["REDIS_URL"]), lifespan="on") as served, \
            httpx.Client(base_url=served.url, timeout=10) as client:
        response = deliver(client, "ping", {"zen": "hi", "hook_id": 1}, secret=str(settings.github_webhook_secret))
        assert response.status_code == 200  # the new webhook secret is in use


def test_reviewbot_setup_serves_the_page_itself_until_github_calls_back(
        bare_env: dict[str, str], fake_github: FakeGitHub, app_keypair: tuple[bytes, bytes], tmp_path: Path) -> None:
    fake_github.add_manifest_code("code-2", app_keypair[0])
    out, result = io.StringIO(), {}
    settings = Settings.from_mapping(bare_env)
    thread = threading.Thread(target=lambda: result.update(code=setup_command(
        settings, org=None, name="my-reviewbot", public_url=PUBLIC, code=None, env_path=tmp_path / ".env",
        out=out)))
    thread.start()
    deadline = time.monotonic() + 10
    while "http://127.0.0.1:" not in out.getvalue() and time.monotonic() < deadline:
        time.sleep(0.02)
    link = re.search(r"http://127\.0\.0\.1:\S+", out.getvalue())[0]  # type: ignore[index]
    with httpx.Client(timeout=10) as client:
        _, state, manifest = form_of(client.get(link))
        assert client.get(urllib.parse.urljoin(link, STYLESHEET)).headers["content-type"].startswith("text/css")
        assert manifest["name"] == "my-reviewbot" and manifest["hook_attributes"]["url"] == f"{PUBLIC}/webhooks/github"
        assert client.get(manifest["redirect_url"], params={"code": "code-2", "state": state}).status_code == 200
    thread.join(timeout=10)
    assert result == {"code": 0} and "installations/new" in out.getvalue()
    assert "GITHUB_APP_ID=4242" in (tmp_path / ".env").read_text()


def test_reviewbot_setup_with_a_code_needs_no_browser(bare_env: dict[str, str], fake_github: FakeGitHub,
                                                      app_keypair: tuple[bytes, bytes], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    fake_github.add_manifest_code("code-3", app_keypair[0])
    monkeypatch.chdir(tmp_path)
    for name, value in bare_env.items():
        monkeypatch.setenv(name, value)
    assert main(["setup", "--code", "code-3"]) == 0
    assert "https://github.com/apps/reviewbot-test/installations/new" in capsys.readouterr().out
    assert Settings.load(env_file=tmp_path / ".env").missing_for_github() == []


def test_serve_offers_setup_only_without_an_app(bare_env: dict[str, str], env: dict[str, str]) -> None:
    out = io.StringIO()
    pages = setup_for_serve(Settings.from_mapping(bare_env), "0.0.0.0", 8000, out)
    assert pages is not None and f"http://127.0.0.1:8000/setup?key={pages.key}" in out.getvalue()
    assert setup_for_serve(Settings.from_mapping(env), "127.0.0.1", 8000, out) is None


def test_addresses_are_validated_and_smee_channels_receive_webhooks_directly() -> None:
    with pytest.raises(ConfigError, match="REVIEWBOT_PUBLIC_URL"):
        Settings.from_mapping({"REVIEWBOT_PUBLIC_URL": "bot.example.com"})
    with pytest.raises(ConfigError, match="GITHUB_URL"):
        Settings.from_mapping({"GITHUB_URL": "ftp://ghe"})
    assert webhook_url("https://smee.io/abc123") == "https://smee.io/abc123"
    assert webhook_url("https://bot.example.com") == "https://bot.example.com/webhooks/github"


@pytest.mark.parametrize("patch_fails", [False, True])
def test_an_app_created_without_a_webhook_secret_gets_one_or_none_is_saved(
        bare_env: dict[str, str], fake_github: FakeGitHub, app_keypair: tuple[bytes, bytes], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, patch_fails: bool) -> None:
    # GitHub documents the conversion's `webhook_secret` as nullable; it must never be saved as "None".
    fake_github.manifest_secret_missing = True
    fake_github.add_manifest_code("code-4", app_keypair[0])
    if patch_fails:
        fake_github.inject("PATCH", "/app/hook/config", 422, {"message": "Validation Failed"})
    monkeypatch.chdir(tmp_path)
    for name, value in bare_env.items():
        monkeypatch.setenv(name, value)
    assert main(["setup", "--code", "code-4"]) == 0
    written = (tmp_path / ".env").read_text()
    assert "None" not in written and "GITHUB_APP_ID=4242" in written
    saved = Settings.load(env_file=tmp_path / ".env").github_webhook_secret
    if patch_fails:  # the App and its key are kept; the secret is left for the operator to set
        assert not saved and "secret" not in fake_github.hook_config
    else:  # the App now signs deliveries with a secret reviewbot generated and saved
        assert saved and len(saved) == 64 and fake_github.hook_config["secret"] == saved
