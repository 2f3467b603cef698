"""Shared fixtures: the fakes (real HTTP servers), a real embedded Redis, and a configured environment."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from redis.asyncio import Redis

from reviewbot.queue.embedded import EmbeddedRedis
from reviewbot.settings import Settings
from reviewbot.webhooks.server import create_app
from tests.conftest_fakes import *  # noqa: F403
from tests.conftest_fakes import APP_ID
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel
from tests.fakes.server import ServedApp

WEBHOOK_SECRET = "whsec-test-0123456789"
MODEL_TOKEN = "cf-test-token"
INSTALLATION = 31337
REPO = "acme/widgets"


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    """One real Redis (the embedded server) for the session; a short path keeps the socket name legal."""
    data = Path(tempfile.mkdtemp(prefix="rb-", dir="/tmp"))
    server = EmbeddedRedis(data)
    url = server.start()
    yield url
    server.stop()
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
async def redis_url(redis_server: str) -> AsyncIterator[str]:
    """The session's Redis, emptied before each test."""
    client = Redis.from_url(redis_server)
    await client.flushall()
    await client.aclose()
    yield redis_server


@pytest.fixture
def env(fake_github: FakeGitHub, fake_model: FakeModel, app_keypair: tuple[bytes, bytes],
        redis_url: str, tmp_path: Path) -> dict[str, str]:
    """The variables of a fully configured reviewbot, pointed at the fakes and the test Redis."""
    fake_github.add_installation(INSTALLATION, [REPO])
    return {
        "GITHUB_APP_ID": str(APP_ID),
        "GITHUB_PRIVATE_KEY": app_keypair[0].decode(),
        "GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "GITHUB_API_URL": fake_github.base_url,
        "REDIS_URL": redis_url,
        "REVIEWBOT_MODEL_BASE_URL": f"{fake_model.url}/client/v4/accounts/acc-1/ai/v1",
        "CLOUDFLARE_API_TOKEN": MODEL_TOKEN,
        "REVIEWBOT_JOB_TIMEOUT": "60",
        "REVIEWBOT_MODEL_BACKOFF": "0.05",
        # A failed job's retry waits 10 s, then 20 s, … by default; here the same steps in fractions of a second.
        "REVIEWBOT_RETRY_DELAY": "0.2",
        "REVIEWBOT_SARIF_POLL": "0.1",  # GitHub's processing of an audit's SARIF upload, looked at after 5 s by default
        "REVIEWBOT_ASYNC_POLL": "0.2",
        # GitHub wants writes a second apart (the default); test_app_limits checks that, the rest go faster.
        "REVIEWBOT_WRITE_INTERVAL": "0.05",
        "REVIEWBOT_DATA_DIR": str(tmp_path / "data"),  # the repository cache and stores, never the worktree
    }


@pytest.fixture
def settings(env: dict[str, str]) -> Settings:
    return Settings.from_mapping(env)


@pytest.fixture
def web(settings: Settings, env: dict[str, str]) -> Iterator[httpx.Client]:
    """reviewbot's web app served by uvicorn on 127.0.0.1 (real HTTP), with a client pointed at it."""
    with ServedApp(create_app(settings, env["REDIS_URL"]), lifespan="on") as served, \
            httpx.Client(base_url=served.url, timeout=10) as client:
        yield client
