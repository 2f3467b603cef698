"""The /setup pages in headless Chromium: the dashboard's stylesheet and chrome, loaded under their own CSP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from reviewbot.app.setup.pages import SetupPages
from reviewbot.observe.theme import STYLESHEET
from reviewbot.settings import Settings
from reviewbot.webhooks.server import create_app
from tests.browser import find_chromium, inspect, screenshot
from tests.fakes.github import FakeGitHub
from tests.fakes.server import ServedApp
from tests.integration.test_app_setup import APP_KEYS, form_of
from tests.integration.test_dashboard import TOKEN

# What a page looks like to the browser once its styles apply; `input` only where the page has a text field.
LOOK = """({
  font: getComputedStyle(document.body).fontFamily,
  background: getComputedStyle(document.body).backgroundColor,
  panel: getComputedStyle(document.querySelector(".panel")).borderRadius,
  input: [...document.querySelectorAll("input[name=org]")].map(field => getComputedStyle(field).borderRadius),
  sheets: [...document.styleSheets].map(sheet => sheet.href),
  rules: document.styleSheets[0].cssRules.length,
})"""


@pytest.fixture
def setup_site(env: dict[str, str], tmp_path: Path) -> Iterator[tuple[str, SetupPages]]:
    """A reviewbot with no App yet and a dashboard token: the dashboard is locked, the setup pages are not."""
    settings = Settings.from_mapping({k: v for k, v in env.items() if k not in APP_KEYS} | {
        "REVIEWBOT_DATA_DIR": str(tmp_path / "data"), "REVIEWBOT_DASHBOARD_TOKEN": TOKEN})
    pages = SetupPages(settings, env_path=tmp_path / ".env")
    with ServedApp(create_app(settings, env["REDIS_URL"], setup=pages), lifespan="on") as served:
        yield served.url, pages


def test_every_setup_page_wears_the_dashboards_stylesheet_in_headless_chromium(
        setup_site: tuple[str, SetupPages], fake_github: FakeGitHub, app_keypair: tuple[bytes, bytes],
        tmp_path: Path) -> None:
    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium here: `apt-get install chromium` (.ci/run installs it on CI)")
    url, pages = setup_site
    with httpx.Client(timeout=10) as client:
        assert client.get(f"{url}{STYLESHEET}").status_code == 200  # no token needed: the CSS holds no data
        _, state, _ = form_of(client.get(pages.address(url)))
    fake_github.add_manifest_code("code-1", app_keypair[0])
    shot = tmp_path / "setup.png"
    screenshot(binary, pages.address(url), shot, height=800)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000

    sign_in = inspect(binary, f"{url}/dashboard/login", LOOK)
    addresses = [pages.address(url), f"{url}/setup", f"{url}/setup/callback?code=code-1&state={state}"]
    form, refused, done = (inspect(binary, address, LOOK) for address in addresses)  # refused: no key, a 403
    for address, page in zip(addresses, (form, refused, done), strict=True):
        looks: dict[str, Any] = page.value
        # Chromium's own default is a serif face; the stylesheet's system-ui means it loaded and applied.
        assert looks["font"] == sign_in.value["font"] and looks["font"].startswith("system-ui"), looks
        assert looks["background"] == sign_in.value["background"] == "rgb(246, 248, 250)"
        assert looks["sheets"] == [f"{url}{STYLESHEET}"] and looks["rules"] > 20  # served here, read whole
        assert looks["panel"] == "6px"
        # Nothing refused by the CSP, no stylesheet missing: nothing logged but the page's own status (and the
        # favicon the browser asks for by itself, which reviewbot does not have).
        assert [text for where, text in page.log if where not in (address, f"{url}/favicon.ico")] == [], page.log
    assert form.value["input"] == ["6px"]  # the text fields are styled too, not the browser's default box
    assert (tmp_path / ".env").read_text().count("GITHUB_APP_ID=") == 1  # the callback page did its work
