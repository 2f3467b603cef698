"""Confidentiality follows visibility: a public pull request's description images are fetched without the
installation's token, so an image only the App could read never reaches the model; a private one's still do."""

from __future__ import annotations

import httpx

from reviewbot.review.linked.readable import UNREADABLE
from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, image_parts
from tests.helpers import deliver, open_pull, payload, run_worker_until_idle
from tests.integration.test_screenshots import png


async def _review_with_screenshot(web: httpx.Client, env: dict[str, str], redis_url: str, github: FakeGitHub,
                                  model: FakeModel, public_shot: str = "") -> tuple[list[object], str]:
    """One review of a PR whose description shows an attachment GitHub serves only with a token (and
    `public_shot`, if given)."""
    settings = Settings.from_mapping({**env, "GITHUB_URL": github.base_url})
    shot = github.add_attachment(png(40, 20))
    also = f"![public]({public_shot})\n" if public_shot else ""
    pull = open_pull(github, body=f"The button is red now.\n\n![after]({shot})\n{also}")
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    [request] = model.review_requests()
    [posted] = github.reviews[(REPO, 7)]
    return list(image_parts(request.json)), str(posted["body"])


async def test_a_public_pull_request_never_sends_an_image_only_the_app_could_read(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.set_visibility(REPO, "public")
    parts, body = await _review_with_screenshot(web, env, redis_url, fake_github, fake_model)
    assert parts == []
    assert f"skipped: {UNREADABLE}" in body and "HTTP" not in body  # not GitHub's status: one wording
    fetched = [c for c in fake_github.requests if c.path.startswith("/user-attachments/")]
    assert fetched and all("authorization" not in c.headers for c in fetched)  # asked as a stranger would


async def test_a_private_pull_request_still_sends_its_screenshot(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.set_visibility(REPO, "private")
    parts, body = await _review_with_screenshot(web, env, redis_url, fake_github, fake_model)
    assert len(parts) == 1 and "sent to the model (40×20)" in body


async def test_a_public_pull_request_still_sends_an_image_anyone_may_read(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.set_visibility(REPO, "public")
    public_shot = fake_github.add_attachment(png(30, 10), public=True)
    parts, body = await _review_with_screenshot(web, env, redis_url, fake_github, fake_model, public_shot)
    assert len(parts) == 1 and "sent to the model (30×10)" in body and f"skipped: {UNREADABLE}" in body
