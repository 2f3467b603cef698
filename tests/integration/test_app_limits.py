"""The port under GitHub's limits and outages: quotas, secondary limits, write spacing, 5xx, lost connections."""

from __future__ import annotations

import asyncio
import itertools
import socket
import time
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.credentials import InstallationCredentials
from reviewbot.app.limits import RateLimits
from reviewbot.app.port import GitHubPort
from reviewbot.app.requester import RetryPolicy
from reviewbot.errors import GitHubRetryable
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.helpers import open_pull

FAST = RetryPolicy(first_s=0.05, max_s=0.1)
SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}


@pytest.fixture
def tokens(settings: Settings) -> InstallationTokens:
    assert settings.github_app_id and settings.github_private_key
    return InstallationTokens(settings.github_app_id, settings.github_private_key, settings.github_api_url)


def new_port(settings: Settings, tokens: InstallationTokens, limits: RateLimits | None = None) -> GitHubPort:
    return GitHubPort(InstallationCredentials(tokens, INSTALLATION), settings.github_api_url,
                      limits=limits or RateLimits(max_wait=5), retry=FAST)


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


def gaps(fake: FakeGitHub, path: str) -> list[float]:
    times = [at for at, _ in fake.timed_requests("POST", path)]
    return [b - a for a, b in itertools.pairwise(times)]


async def test_a_short_secondary_limit_is_waited_out(settings: Settings, tokens: InstallationTokens,
                                                     fake_github: FakeGitHub) -> None:
    open_pull(fake_github)
    fake_github.inject("GET", rf"/repos/{REPO}/pulls/7", 403, SECONDARY, {"retry-after": "1"})
    started = time.monotonic()
    assert (await new_port(settings, tokens).get_pull(REPO, 7)).number == 7
    assert time.monotonic() - started >= 1.0


async def test_a_spent_quota_defers_until_the_reset_without_asking_github(
        settings: Settings, tokens: InstallationTokens, fake_github: FakeGitHub) -> None:
    open_pull(fake_github)
    fake_github.rate_limit = 8
    port = new_port(settings, tokens)
    for _ in range(3):  # remaining 7, 6, 5: the reserve is reached
        await port.get_pull(REPO, 7)
    sent = len(fake_github.requests)
    with pytest.raises(GitHubRetryable) as deferred:
        await port.get_pull(REPO, 7)
    assert deferred.value.retry_after is not None and 3500 < deferred.value.retry_after <= 3602
    assert len(fake_github.requests) == sent


async def test_a_spent_quota_with_a_near_reset_is_waited_for(settings: Settings, tokens: InstallationTokens,
                                                             fake_github: FakeGitHub) -> None:
    open_pull(fake_github)
    fake_github.rate_limit = 8
    port = new_port(settings, tokens)
    for _ in range(2):
        await port.get_pull(REPO, 7)
    for window in fake_github.rate_windows.values():
        window.reset_at = int(time.time()) + 1
    await port.get_pull(REPO, 7)  # 5 left, and the reset is a second away
    started = time.monotonic()
    assert (await port.get_pull(REPO, 7)).number == 7
    assert time.monotonic() - started >= 0.9


async def test_writes_of_one_installation_are_a_second_apart(settings: Settings, tokens: InstallationTokens,
                                                             fake_github: FakeGitHub) -> None:
    open_pull(fake_github)
    port = new_port(settings, tokens)
    await asyncio.gather(*(port.create_issue_comment(REPO, 7, f"note {i}") for i in range(3)))
    spaced = gaps(fake_github, rf"/repos/{REPO}/issues/7/comments")
    assert len(spaced) == 2 and min(spaced) >= 1.0


async def test_writes_are_spaced_across_processes_through_redis(settings: Settings, tokens: InstallationTokens,
                                                                fake_github: FakeGitHub, redis: Redis) -> None:
    open_pull(fake_github)
    # Two workers: separate ports and limiters, one Redis.
    ports = [new_port(settings, tokens, RateLimits(redis=redis)) for _ in range(2)]
    await asyncio.gather(*(p.create_issue_comment(REPO, 7, "hello") for p in ports))
    [gap] = gaps(fake_github, rf"/repos/{REPO}/issues/7/comments")
    assert gap >= 1.0


async def test_a_burst_of_502s_on_reads_is_retried(settings: Settings, tokens: InstallationTokens,
                                                   fake_github: FakeGitHub) -> None:
    open_pull(fake_github)
    fake_github.inject("GET", rf"/repos/{REPO}/pulls/7", 502, "Bad Gateway", times=2)
    assert (await new_port(settings, tokens).get_pull(REPO, 7)).number == 7


async def test_a_review_that_went_through_despite_a_502_is_not_posted_twice(
        settings: Settings, tokens: InstallationTokens, fake_github: FakeGitHub) -> None:
    pull = open_pull(fake_github)
    body = {"commit_id": pull["head"]["sha"], "event": "COMMENT", "body": "one review", "comments": []}
    fake_github.inject("POST", rf"/repos/{REPO}/pulls/7/reviews", 502, "Bad Gateway", after=True)
    review_id = await new_port(settings, tokens).create_review(REPO, 7, body)
    [posted] = fake_github.reviews[(REPO, 7)]
    assert posted["id"] == review_id


async def test_a_review_refused_with_a_502_is_posted_on_the_next_try(
        settings: Settings, tokens: InstallationTokens, fake_github: FakeGitHub) -> None:
    pull = open_pull(fake_github)
    body = {"commit_id": pull["head"]["sha"], "event": "COMMENT", "body": "one review", "comments": []}
    fake_github.inject("POST", rf"/repos/{REPO}/pulls/7/reviews", 502, "Bad Gateway")
    await new_port(settings, tokens).create_review(REPO, 7, body)
    assert len(fake_github.reviews[(REPO, 7)]) == 1


async def test_an_unreachable_github_is_retryable_after_a_few_tries() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    port = GitHubPort("ghs_unused", closed, retry=FAST, timeout=2)
    with pytest.raises(GitHubRetryable, match="cannot reach GitHub"):
        await port.get_pull(REPO, 7)
