"""Screenshots in a PR description: GitHub attachments reach a vision model as image parts, nothing else is fetched."""

from __future__ import annotations

import asyncio
import base64
import io
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PIL import Image
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from reviewbot.app.attachments import Hosts
from reviewbot.app.auth import InstallationTokens
from reviewbot.app.port import GitHubPort
from reviewbot.errors import GitHubError
from reviewbot.jobs.pr_review.screenshots import screenshots
from reviewbot.review.prompt.pixels import Checked, check_image
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, image_parts
from tests.fakes.server import ServedApp
from tests.gfm import github_problems
from tests.helpers import deliver, open_pull, payload, run_worker_until_idle


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def foreign() -> Iterator[tuple[str, list[str]]]:
    """Another host serving an image: whatever asks for it is recorded."""
    hits: list[str] = []

    async def serve(request: Request) -> Response:
        hits.append(request.url.path)
        return Response(png(10, 10), media_type="image/png")

    with ServedApp(Starlette(routes=[Route("/{rest:path}", serve)])) as served:
        yield served.url, hits


def describe_pr(github: FakeGitHub, foreign_url: str) -> dict[str, Any]:
    shot = github.add_attachment(png(3000, 1500))
    body = (f"The login button is now red.\n\n![login page after]({shot})\n\nBefore it was grey."
            f"\n\n![tracker]({foreign_url}/pixel.png)\n<img alt=\"logo\" src=\"{github.base_url}/user-attachments/"
            "assets/logo.svg\">")
    return open_pull(github, body=body)


async def review(web: httpx.Client, settings: Settings, redis_url: str, pull: dict[str, Any]) -> None:
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)


async def test_a_github_hosted_screenshot_reaches_a_vision_model_and_a_foreign_one_is_never_fetched(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel,
        foreign: tuple[str, list[str]]) -> None:
    settings = Settings.from_mapping({**env, "GITHUB_URL": fake_github.base_url})
    pull = describe_pr(fake_github, foreign[0])
    await review(web, settings, redis_url, pull)

    [request] = fake_model.review_requests()
    [part] = image_parts(request.json)
    header, data = part["image_url"]["url"].split(",", 1)
    assert header == "data:image/png;base64"
    with Image.open(io.BytesIO(base64.b64decode(data))) as sent:
        assert sent.size == (1568, 784)  # downscaled, proportions kept
    texts = [p["text"] for p in request.json["messages"][1]["content"] if p["type"] == "text"]
    assert any("login button is now red" in t for t in texts) and any("Before it was grey" in t for t in texts)
    assert "return result / len(items)" in texts[0]  # the prompt with the diff first, then the screenshot
    assert foreign[1] == []  # the foreign host was never asked
    fetched = [c for c in fake_github.requests if c.path.startswith("/user-attachments/")]
    assert len(fetched) == 1 and fetched[0].headers["authorization"] == "token [redacted]"  # the SVG was not
    [posted] = fake_github.reviews[(REPO, 7)]
    assert "sent to the model (1568×784)" in posted["body"]
    assert "hosted outside GitHub" in posted["body"] and "SVG images are never fetched" in posted["body"]


async def test_a_model_without_vision_gets_no_image_and_nothing_is_downloaded(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel,
        foreign: tuple[str, list[str]]) -> None:
    text_only = "@cf/meta/llama-3.3-70b-instruct-fp8-fast"  # not in the catalogue: no vision assumed
    fake_model.stand_ins[text_only] = "@cf/moonshotai/kimi-k2.6"
    settings = Settings.from_mapping({**env, "GITHUB_URL": fake_github.base_url, "REVIEWBOT_MODEL": text_only})
    await review(web, settings, redis_url, describe_pr(fake_github, foreign[0]))
    [request] = fake_model.review_requests()
    assert image_parts(request.json) == [] and isinstance(request.json["messages"][1]["content"], str)
    assert not [c for c in fake_github.requests if c.path.startswith("/user-attachments/")] and foreign[1] == []
    [posted] = fake_github.reviews[(REPO, 7)]
    assert "3 image(s) in the description not sent" in posted["body"]


def image_downloads(github: FakeGitHub) -> list[str]:
    """Every request the image downloader made (it alone asks for `image/*`), wherever it went."""
    return [c.path for c in github.requests if c.headers.get("accept") == "image/*"]


async def installation_port(settings: Settings) -> GitHubPort:
    assert settings.github_app_id and settings.github_private_key
    tokens = InstallationTokens(settings.github_app_id, settings.github_private_key, settings.github_api_url)
    return GitHubPort(await tokens.get(INSTALLATION), settings.github_api_url)


async def test_a_dot_segment_path_never_reaches_github_with_the_token(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = Settings.from_mapping({**env, "GITHUB_URL": fake_github.base_url})
    sneaky = [f"{fake_github.base_url}/user-attachments/assets/../../repos/{REPO}/contents/app/calc.py",
              f"{fake_github.base_url}/user-attachments/assets/%2e%2e/%2e%2e/repos/{REPO}/contents/app/calc.py",
              f"{fake_github.base_url}/user-attachments/assets/..%2F..%2Frepos%2F{REPO.replace('/', '%2F')}"]
    pull = open_pull(fake_github, body="\n".join(f"![shot {n}]({url})" for n, url in enumerate(sneaky)))
    await review(web, settings, redis_url, pull)
    assert image_downloads(fake_github) == []
    [posted] = fake_github.reviews[(REPO, 7)]
    assert posted["body"].count("a dot segment in the path") == 1
    assert posted["body"].count("an encoded slash, dot or backslash in the path") == 2
    port = await installation_port(settings)  # the port refuses it too, whatever a caller asks
    with pytest.raises(GitHubError, match="dot segment"):
        await port.download_image(sneaky[0], 10**6)


async def test_broken_image_links_count_against_the_image_limit(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = Settings.from_mapping({**env, "GITHUB_URL": fake_github.base_url, "REVIEWBOT_MAX_IMAGES": "3"})
    broken = [f"{fake_github.base_url}/user-attachments/assets/gone-{n}" for n in range(40)]
    pull = open_pull(fake_github, body=" ".join(f"![{n}]({url})" for n, url in enumerate(broken)))
    await review(web, settings, redis_url, pull)
    assert len(image_downloads(fake_github)) == 3
    [posted] = fake_github.reviews[(REPO, 7)]
    assert posted["body"].count("more than REVIEWBOT_MAX_IMAGES (3)") == 37


async def test_redirects_are_followed_only_to_github_image_hosts(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel,
        foreign: tuple[str, list[str]]) -> None:
    settings = Settings.from_mapping({**env, "GITHUB_URL": fake_github.base_url})
    real = fake_github.add_attachment(png(20, 10))
    moved = fake_github.add_redirecting_attachment(real)  # GitHub's own host: followed
    away = fake_github.add_redirecting_attachment(f"{foreign[0]}/metadata.png")  # a loopback port: never
    metadata = fake_github.add_redirecting_attachment("http://169.254.169.254/latest/meta-data/")
    pull = open_pull(fake_github, body=f"![one]({moved}) ![two]({away}) ![three]({metadata})")
    await review(web, settings, redis_url, pull)
    assert foreign[1] == []
    [posted] = fake_github.reviews[(REPO, 7)]
    assert "sent to the model (20×10)" in posted["body"]
    assert posted["body"].count("redirected elsewhere: not an https URL of a GitHub image host") == 2


def test_a_redirect_target_must_resolve_to_public_addresses_only() -> None:
    hosts = Hosts.for_api("https://api.github.com")
    url = "https://private-user-images.githubusercontent.com/1/2.png?jwt=x"
    assert hosts.refusal(url, redirect=True) == ""
    hosts.check_address(url, lambda host: ["185.199.108.154", "2606:50c0:8000::154"])
    for inside in (["127.0.0.1"], ["185.199.108.154", "10.1.2.3"], ["169.254.169.254"], ["::1"], ["fe80::1%eth0"],
                   ["::ffff:127.0.0.1"], ["100.64.0.1"], []):
        with pytest.raises(GitHubError, match="private, loopback or link-local"):
            hosts.check_address(url, lambda host, found=inside: found)  # type: ignore[misc]
    assert hosts.refusal("https://evil.example/x.png", redirect=True) == "not a GitHub image host"
    assert hosts.refusal("https://objects.githubusercontent.com/x.png", redirect=False) == "not a GitHub image host"


async def test_on_an_enterprise_server_githubusercontent_urls_get_no_token(
        env: dict[str, str], fake_github: FakeGitHub) -> None:
    port = await installation_port(Settings.from_mapping(env))  # the fake GitHub is an Enterprise Server's API
    for url in ("https://private-user-images.githubusercontent.com/1/x.png?jwt=t",
                "https://user-images.githubusercontent.com/1/x.png"):
        with pytest.raises(GitHubError, match="not this GitHub Enterprise Server's host"):
            await port.download_image(url, 10**6)
    ghes = Hosts.for_api("https://ghes.example.com/api/v3")
    assert ghes.refusal("https://media.ghes.example.com/user/1/files/x.png", redirect=True) == ""
    assert ghes.refusal("https://user-images.githubusercontent.com/1/x.png", redirect=True) != ""


async def test_image_checks_run_off_the_event_loop(env: dict[str, str], fake_github: FakeGitHub) -> None:
    """The check (decoding a large image takes a second) must leave the loop free: the lease heartbeat runs."""
    settings = Settings.from_mapping({**env, "GITHUB_URL": fake_github.base_url, "REVIEWBOT_VISION": "on"})
    shot = fake_github.add_attachment(png(30, 20))
    open_pull(fake_github, body=f"![shot]({shot})")
    port = await installation_port(settings)
    pull = await port.get_pull(REPO, 7)
    started, release = threading.Event(), threading.Event()

    def slow_check(data: bytes, kind: str, max_bytes: int, max_pixels: int) -> Checked:
        started.set()
        assert release.wait(20), "the event loop was blocked while the image was checked"
        return check_image(data, kind, max_bytes, max_pixels)

    task = asyncio.create_task(screenshots(port, settings, REPO, pull, check=slow_check))
    assert await asyncio.to_thread(started.wait, 20)
    release.set()  # only reachable while the check runs in a thread
    parts, notes = await task
    assert len(notes) == 1 and notes[0].endswith("sent to the model (30×20)")
    assert [p["type"] for p in parts].count("image_url") == 1


async def test_notes_about_hostile_image_urls_render_safely(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    """The coverage notes name every image: a name taken from a hostile URL must not ping, link or inject."""
    settings = Settings.from_mapping({**env, "GITHUB_URL": fake_github.base_url})
    urls = ["https://www.evil.example/pixel.png", "https://evil.example/a/www.evil.example",
            "https://evil.example/@everyone", "https://evil.example/[x](mailto:a@evil.example)",
            f"{fake_github.base_url}/user-attachments/assets/*boom*_<b>x</b>",
            f"{fake_github.base_url}/user-attachments/assets/..%2F@org%2Fteam"]
    body = " ".join(f"![{n}]({url})" for n, url in enumerate(urls))
    body += '\n<img src="https://evil.example/x/`` <img src=y> ``">'
    await review(web, settings, redis_url, open_pull(fake_github, body=body))
    [posted] = fake_github.reviews[(REPO, 7)]
    assert posted["body"].count("image ") >= len(urls)
    assert github_problems(posted["body"], fake_github.base_url, REPO) == [], posted["body"]
