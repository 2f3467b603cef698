"""Screenshots in a PR description: GitHub attachments reach a vision model as image parts, nothing else is fetched."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PIL import Image
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, image_parts
from tests.fakes.server import ServedApp
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
