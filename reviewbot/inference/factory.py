"""The model client every entry point uses (worker, `review`, `audit`, `eval`), configured from settings."""

from __future__ import annotations

import httpx

from reviewbot.inference.client import ModelClient
from reviewbot.inference.ratelimit import RequestBucket
from reviewbot.settings import Settings


def model_client(settings: Settings, http: httpx.AsyncClient, bucket: RequestBucket | None = None) -> ModelClient:
    """The model client every entry point uses (worker, CLI), configured from settings."""
    return ModelClient(http=http, base_url=settings.chat_base_url, model=settings.model,
                       api_token=settings.cloudflare_api_token, prices=settings.prices,
                       max_attempts=settings.model_retries, backoff_s=settings.model_backoff_s,
                       run_url=settings.run_url if settings.async_queue else None,
                       async_poll_s=settings.async_poll_s,
                       reject_if_busy=settings.reject_if_busy if settings.reject_if_busy is not None
                       else settings.is_cloudflare,
                       thinking=settings.thinking, max_completion_tokens=settings.max_completion_tokens,
                       max_tokens_alias=not settings.is_cloudflare, bucket=bucket)
