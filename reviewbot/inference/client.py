"""Chat completions over httpx: auth, session affinity, bounded retries, usage and price per request."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from reviewbot.errors import ModelPermanent, ModelRetryable
from reviewbot.inference.pricing import DEFAULT_PRICES, Price, Usage, usage_from_response

log = logging.getLogger(__name__)
CAPACITY = 3040  # Workers AI: out of capacity, transient
PERMANENT_CODES = {3036: "the account's daily allowance is spent", 5035: "the model needs a Workers Paid plan",
                   3006: "the request is too large", 5007: "no such model", 3042: "invalid model id"}


@dataclass(frozen=True)
class ChatResult:
    content: str | None
    tool_calls: list[dict[str, Any]]
    reasoning: str | None
    finish_reason: str | None
    model: str
    usage: Usage
    latency_s: float


@dataclass
class ModelClient:
    """One per process; the AsyncClient is made by the caller (lifespan or on_startup) and passed in."""

    http: httpx.AsyncClient
    base_url: str
    model: str
    api_token: str | None
    prices: dict[str, Price] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    max_attempts: int = 3
    backoff_s: float = 1.0

    async def chat(self, messages: list[dict[str, Any]], *, affinity: str,
                   response_format: dict[str, Any] | None = None,
                   tools: list[dict[str, Any]] | None = None) -> ChatResult:
        """One completion; transient failures are retried here a few times, then raised as ModelRetryable."""
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": False}
        if response_format is not None:
            body["response_format"] = response_format
        if tools:
            body["tools"] = tools
        headers = {"x-session-affinity": affinity}
        if self.api_token:
            headers["Authorization"] = f"Bearer {self.api_token}"
        url = f"{self.base_url}/chat/completions"
        for attempt in range(1, self.max_attempts + 1):
            started = time.monotonic()
            try:
                response = await self.http.post(url, json=body, headers=headers)
            except httpx.TransportError as exc:
                error: ModelPermanent | ModelRetryable = ModelRetryable(f"model request failed: {type(exc).__name__}")
            else:
                if response.status_code == 200:
                    return self._result(response, time.monotonic() - started)
                error = _classify(response)
                if isinstance(error, ModelPermanent):
                    raise error
            if attempt == self.max_attempts:
                raise error
            delay = self.backoff_s * 2 ** (attempt - 1) * (0.5 + random.random())  # noqa: S311 - jitter
            log.warning("model request failed, retrying", extra={"attempt": attempt, "error": str(error)})
            await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    def _result(self, response: httpx.Response, latency: float) -> ChatResult:
        try:
            body = response.json()
            body = body.get("result", body) if isinstance(body, dict) else body  # Cloudflare's v4 envelope
            choice = body["choices"][0]
            message = choice.get("message") or {}
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise ModelRetryable(f"model answered 200 without a completion ({type(exc).__name__})") from None
        served = str(body.get("model") or self.model)
        if served != self.model:
            log.warning("model served differs from requested",
                        extra={"requested": self.model, "served": served})
        return ChatResult(content=message.get("content"), tool_calls=list(message.get("tool_calls") or []),
                          reasoning=message.get("reasoning_content") or message.get("reasoning"),
                          finish_reason=choice.get("finish_reason"), model=served,
                          usage=usage_from_response(body, self.prices, self.model), latency_s=latency)


def error_codes(response: httpx.Response) -> tuple[set[int], str]:
    """Cloudflare codes from `errors[].code` (or OpenAI's `error.code`) and a short message."""
    try:
        data = response.json()
    except ValueError:
        return set(), response.text[:200]
    codes: set[int] = set()
    messages: list[str] = []
    errors = data.get("errors") if isinstance(data, dict) else None
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        errors = [data["error"]]
    for item in errors or []:
        if isinstance(item, dict):
            if str(item.get("code", "")).isdigit():
                codes.add(int(item["code"]))
            messages.append(str(item.get("message") or ""))
    return codes, "; ".join(m for m in messages if m)[:300]


def _classify(response: httpx.Response) -> ModelPermanent | ModelRetryable:
    """Retryable: capacity (3040), 429, 408, 5xx. Permanent: quota, plan, auth, size, bad request."""
    status = response.status_code
    codes, message = error_codes(response)
    for code, meaning in PERMANENT_CODES.items():
        if code in codes:
            return ModelPermanent(f"model provider refused the request: {meaning} (code {code}, HTTP {status})",
                                  status=status)
    if status in (401, 403):
        return ModelPermanent(f"model provider rejected the credentials (HTTP {status}): check "
                              "CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID", status=status)
    if status in (408, 429) or status >= 500 or CAPACITY in codes:
        busy = ", out of capacity" if CAPACITY in codes else ""
        return ModelRetryable(f"model provider is busy (HTTP {status}{busy})", status=status)
    return ModelPermanent(f"model provider answered HTTP {status}: {message or 'no details'}", status=status)
