"""What every command family shares: loading settings with logging, and finding (or starting) Redis."""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reviewbot.errors import ConfigError
from reviewbot.observe.logs import setup_logging
from reviewbot.settings import Settings

if TYPE_CHECKING:
    from reviewbot.queue.embedded import EmbeddedRedis

Handler = Callable[[argparse.Namespace], int]
Subparsers = Any  # argparse's _SubParsersAction is private; each family only calls add_parser on it


def load_settings(*, quiet: bool) -> Settings:
    """Settings from the environment and .env; commands whose stdout is data log only warnings."""
    settings = Settings.load()
    setup_logging(settings.secrets, logging.WARNING if quiet else logging.INFO, settings.log_format)
    return settings


def redis_url(settings: Settings) -> tuple[str, EmbeddedRedis | None]:
    """REDIS_URL when set (it must answer), else the embedded server under the data dir (started or joined)."""
    from reviewbot.queue.embedded import EmbeddedRedis  # only the commands that need Redis pay for it

    if settings.redis_url:
        wait_for_redis(settings.redis_url)
        return settings.redis_url, None
    embedded = EmbeddedRedis(settings.data_dir)
    return embedded.start(), embedded


def wait_for_redis(url: str, seconds: float = 5.0) -> None:
    """A clear error instead of a traceback when REDIS_URL does not answer at start (it may be starting too)."""
    from redis import Redis
    from redis.exceptions import RedisError

    deadline = time.monotonic() + seconds
    while True:
        try:
            with Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2) as client:
                client.ping()
                return
        except (RedisError, OSError) as exc:
            if time.monotonic() > deadline:
                raise ConfigError(f"the Redis at REDIS_URL does not answer ({type(exc).__name__}): start it, or "
                                  "unset REDIS_URL to use the embedded one") from None
            time.sleep(0.5)
