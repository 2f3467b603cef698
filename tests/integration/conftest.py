"""Fixtures shared by the integration tests that talk to the fake GitHub through the port."""

from __future__ import annotations

import pytest

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.limits import RateLimits
from reviewbot.app.port import GitHubPort
from reviewbot.app.requester import RetryPolicy
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION


@pytest.fixture
async def port(settings: Settings) -> GitHubPort:
    """A port on the installation's token, retrying fast (the fake's faults are answered in milliseconds) and
    spacing its writes by the test environment's REVIEWBOT_WRITE_INTERVAL, as the worker's ports do."""
    assert settings.github_app_id and settings.github_private_key
    tokens = InstallationTokens(settings.github_app_id, settings.github_private_key, settings.github_api_url)
    return GitHubPort(await tokens.get(INSTALLATION), settings.github_api_url,
                      retry=RetryPolicy(first_s=0.05, max_s=0.1),
                      limits=RateLimits(write_interval=settings.write_interval))
