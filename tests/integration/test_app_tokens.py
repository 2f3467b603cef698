"""Installation tokens: one request for many calls, shared through Redis, refreshed once after a 401."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import jwt
import pytest
from redis.asyncio import Redis

from reviewbot.app.auth import InstallationTokens, app_jwt
from reviewbot.app.credentials import InstallationCredentials
from reviewbot.app.port import GitHubPort
from reviewbot.errors import GitHubError
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.helpers import open_pull

TOKEN_PATH = rf"/app/installations/{INSTALLATION}/access_tokens"


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


def tokens_for(settings: Settings, redis: Redis | None = None) -> InstallationTokens:
    assert settings.github_app_id and settings.github_private_key
    return InstallationTokens(settings.github_app_id, settings.github_private_key, settings.github_api_url,
                              redis=redis)


def token_requests(fake: FakeGitHub) -> int:
    return len(fake.timed_requests("POST", TOKEN_PATH))


async def test_many_calls_share_one_token_request(settings: Settings, fake_github: FakeGitHub) -> None:
    open_pull(fake_github)
    port = GitHubPort(InstallationCredentials(tokens_for(settings), INSTALLATION), settings.github_api_url)
    pulls = await asyncio.gather(*(port.get_pull(REPO, 7) for _ in range(6)))
    await port.list_files(REPO, 7)
    assert {p.number for p in pulls} == {7}
    assert token_requests(fake_github) == 1


async def test_two_processes_share_the_token_through_redis(settings: Settings, fake_github: FakeGitHub,
                                                           redis: Redis) -> None:
    first, second = tokens_for(settings, redis), tokens_for(settings, redis)
    assert await first.get(INSTALLATION) == await second.get(INSTALLATION)
    assert token_requests(fake_github) == 1
    assert await redis.ttl(f"reviewbot:installation-token:{settings.github_app_id}:{INSTALLATION}") > 3000


async def test_a_401_gets_a_fresh_token_once_and_the_call_goes_through(
        settings: Settings, fake_github: FakeGitHub, redis: Redis, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    open_pull(fake_github)
    tokens = tokens_for(settings, redis)
    port = GitHubPort(InstallationCredentials(tokens, INSTALLATION), settings.github_api_url)
    old = await tokens.get(INSTALLATION)
    await port.get_pull(REPO, 7)
    fake_github.expire_tokens()
    assert (await port.get_pull(REPO, 7)).number == 7
    new = await tokens.get(INSTALLATION)
    assert new != old and token_requests(fake_github) == 2
    # Another process picks the refreshed token from Redis instead of asking GitHub again.
    assert await tokens_for(settings, redis).get(INSTALLATION) == new and token_requests(fake_github) == 2
    assert old not in caplog.text and new not in caplog.text


async def test_a_token_refused_twice_is_a_permanent_error(settings: Settings, fake_github: FakeGitHub) -> None:
    open_pull(fake_github)
    port = GitHubPort(InstallationCredentials(tokens_for(settings), INSTALLATION), settings.github_api_url)
    fake_github.inject("GET", rf"/repos/{REPO}/pulls/7", 401, {"message": "Bad credentials"}, times=2)
    with pytest.raises(GitHubError) as refused:
        await port.get_pull(REPO, 7)
    assert refused.value.status == 401 and token_requests(fake_github) == 2


def test_the_jwt_names_the_client_id_when_there_is_one(app_keypair: tuple[bytes, bytes]) -> None:
    claims = jwt.decode(app_jwt("Iv1.abc", app_keypair[0].decode(), now=1_700_000_000), app_keypair[1],
                        algorithms=["RS256"], options={"verify_exp": False})
    assert claims == {"iss": "Iv1.abc", "iat": 1_700_000_000 - 60, "exp": 1_700_000_000 - 60 + 600}
