"""Chat completions over httpx: affinity, bounded retries, rate limit, async-queue fallback, usage and price."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from reviewbot.errors import ModelBusy, ModelPermanent, ModelQueued, ModelRetryable, ModelUnreachable, RateLimited
from reviewbot.inference.memo import RequestMemo, request_key
from reviewbot.inference.pricing import usage_from_response
from reviewbot.inference.provider_errors import classify
from reviewbot.inference.queued import AsyncQueue, QueuedRequestLost
from reviewbot.inference.ratelimit import RequestBucket
from reviewbot.model import Usage
from reviewbot.settings.catalogue import DEFAULT_PRICES, Capabilities, Price, capabilities

log = logging.getLogger(__name__)
SYNC_MARK = "reviewbot_sync"  # a memo entry answered synchronously (not through the queue)
MAX_INLINE_WAIT_S = 5.0  # longer rate-limit waits give the worker slot back (RateLimited → arq Retry)


@dataclass(frozen=True)
class ChatResult:
    content: str | None
    tool_calls: list[dict[str, Any]]
    reasoning: str | None
    finish_reason: str | None
    model: str
    usage: Usage
    latency_s: float
    payload: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # as received, for the memo
    # The queued request's id: the same answer fetched again (a re-run after a crash) is charged only once.
    charge_key: str | None = None


class Unusable(ModelRetryable):
    """A 200 without a completion; `billed` is the request as charged when the provider billed it anyway."""

    def __init__(self, message: str, billed: ChatResult | None) -> None:
        super().__init__(message)
        self.billed = billed


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
    run_url: str | None = None  # the native endpoint; None disables the asynchronous fallback
    async_poll_s: float = 20.0
    reject_if_busy: bool = False
    thinking: bool | None = None
    max_completion_tokens: int | None = None
    bucket: RequestBucket | None = None
    form_index: int = 0  # which response_format shape the provider accepted; later reviews start there
    # The output limit sent as `max_tokens` too: llama.cpp's Python server and Ollama read only that name and would
    # otherwise generate until the context is full. Off for Workers AI (its requests stay byte-identical) and
    # turned off for good when a server refuses the name (OpenAI's reasoning models do).
    max_tokens_alias: bool = False
    # Told of every paid request (not replays); an awaitable it returns (a budget charge) is awaited.
    on_request: Callable[[ChatResult], Awaitable[None] | None] | None = None
    # Asked before each paid request (sent or queued): a job that lost its lease raises here (fencing).
    before_request: Callable[[], Awaitable[None]] | None = None
    prefer_async: bool = False  # audits: every request goes to the asynchronous queue first (needs a memo)
    caps: Capabilities | None = None  # the model's published capabilities; None: looked up by `model`

    def __post_init__(self) -> None:
        if self.caps is None:
            self.caps = capabilities(self.model)
        if not self.caps.async_queue:
            self.run_url = None  # the model has no asynchronous queue: capacity errors are deferred instead

    @property
    def capabilities(self) -> Capabilities:
        assert self.caps is not None
        return self.caps

    def body(self, messages: list[dict[str, Any]], response_format: dict[str, Any] | None = None,
             tools: list[dict[str, Any]] | None = None, tool_choice: str | None = None,
             max_completion_tokens: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": False}
        if response_format is not None:
            body["response_format"] = response_format
        if tools:
            body["tools"] = tools
            if tool_choice:
                body["tool_choice"] = tool_choice
        if limit := max_completion_tokens or self.max_completion_tokens:
            body["max_completion_tokens"] = limit
            if self.max_tokens_alias:
                body["max_tokens"] = limit
        if (switch := self._thinking_switch()) is not None:
            body["chat_template_kwargs"] = switch
        return body

    def _thinking_switch(self) -> dict[str, bool] | None:
        """The thinking parameter the model's schema names, only when set and accepted (an always-thinking model
        takes only `true`, so `off` is not sent; start-up warns about it)."""
        caps = self.capabilities
        if self.thinking is None or caps.thinking_parameter is None:
            return None
        if caps.thinking_always_on and not self.thinking:
            return None
        return {caps.thinking_parameter: self.thinking}

    async def chat(self, body: dict[str, Any], *, affinity: str, memo: RequestMemo | None = None) -> ChatResult:
        """One completion. Transient failures are retried a few times; then, when the provider has an
        asynchronous queue and a memo to find the answer again, the request is submitted there and ModelQueued
        tells the caller to come back."""
        key = request_key(body)
        if memo is None:
            return await self._send(body, affinity)
        if (done := await memo.result(key)) is not None:
            return self._result(done, 0.0, via_async=not done.get(SYNC_MARK), affinity=affinity)
        if (request_id := await memo.pending(key)) is not None:
            return await self._poll(memo, key, request_id, affinity)
        if self.prefer_async and self.run_url is not None:  # not real-time work: queue it, poll it later
            await self._may_pay()
            request_id = await self._queue(affinity).submit(body)
            await memo.save_pending(key, request_id)
            raise ModelQueued("submitted to the provider's asynchronous queue", retry_after=self.async_poll_s)
        try:
            result = await self._send(body, affinity)
        except ModelRetryable as exc:
            if self.run_url is None:
                raise  # the job defers it with a jittered backoff
            log.warning("model busy; using the asynchronous queue", extra={"affinity": affinity, "error": str(exc)})
            try:
                await self._may_pay()
                request_id = await self._queue(affinity).submit(body)
            except ModelPermanent as refused:
                # The queue will not take it (400/404/413): stop using the queue, defer the busy request instead.
                log.warning("the asynchronous queue refused the request; deferring instead",
                            extra={"affinity": affinity, "error": str(refused)})
                self.run_url = None
                raise exc from refused
            await memo.save_pending(key, request_id)
            raise ModelQueued("waiting in the provider's asynchronous queue", retry_after=self.async_poll_s) from exc
        # Kept too, so that when a later request of the same review (verification, another pass) is queued, the
        # re-run replays this answer instead of asking again and getting different findings to verify.
        await memo.save_result(key, {**result.payload, SYNC_MARK: True})
        return result

    async def answered(self, memo: RequestMemo, key: str, request_id: str, affinity: str) -> bool:
        """Poll one queued request by its id alone: True once its answer is in the memo (billed on arrival),
        False while it waits. Lets a job that comes back to poll skip building its prompts until it has news."""
        try:
            await self._poll(memo, key, request_id, affinity)
        except ModelQueued:
            return False
        return True

    async def _poll(self, memo: RequestMemo, key: str, request_id: str, affinity: str) -> ChatResult:
        try:
            completion = await self._queue(affinity).poll(request_id)
        except (QueuedRequestLost, ModelPermanent):
            await memo.clear_pending(key)  # never poll a lost request until its 24 h lifetime ends
            raise
        if completion is None:
            raise ModelQueued("still waiting in the provider's asynchronous queue", retry_after=self.async_poll_s)
        # Charged before it is remembered: a crash in between polls it again and the charge, keyed by the request
        # id, is not counted twice; remembered first, a crash would leave a paid request uncharged for good.
        try:
            result = await self._billed(completion, 0.0, via_async=True, affinity=affinity, charge_key=request_id)
        except Unusable:
            await memo.clear_pending(key)  # billed (and charged) but unusable: the next try asks afresh
            raise
        await memo.save_result(key, completion)
        await memo.clear_pending(key)
        return result

    async def _send(self, body: dict[str, Any], affinity: str) -> ChatResult:
        if self.reject_if_busy:
            body = {**body, "options": {"rejectIfBusy": True}}  # a fast 3040 instead of a long wait
        for attempt in range(1, self.max_attempts + 1):
            await self._take_rate_token()
            await self._may_pay()
            started = time.monotonic()
            try:
                response = await self.http.post(f"{self.base_url}/chat/completions", json=body,
                                                headers=self._headers(affinity))
            except httpx.TransportError as exc:
                error: ModelPermanent | ModelRetryable = ModelUnreachable(f"model request failed: {type(exc).__name__}")
            else:
                if response.status_code == 200:
                    try:
                        payload = response.json()
                    except ValueError:
                        payload = None
                    if isinstance(payload, dict):
                        return await self._billed(payload, time.monotonic() - started, via_async=False,
                                                  affinity=affinity)
                    error = ModelRetryable("model answered 200 with a body that is not JSON")
                else:
                    error = classify(response)
                    # Permanent errors never improve; with rejectIfBusy a busy answer goes to the queue at once.
                    if isinstance(error, ModelPermanent) or (self.reject_if_busy and isinstance(error, ModelBusy)
                                                             and self.run_url is not None):
                        raise error
            if attempt == self.max_attempts:
                raise error
            delay = self.backoff_s * 2 ** (attempt - 1) * (0.5 + random.random())  # noqa: S311 - jitter
            log.warning("model request failed, retrying", extra={"attempt": attempt, "error": str(error)})
            await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    async def _take_rate_token(self) -> None:
        while self.bucket is not None and (wait := await self.bucket.take()) > 0:
            if wait > MAX_INLINE_WAIT_S:
                raise RateLimited("our model request budget per minute is spent", retry_after=wait)
            await asyncio.sleep(wait)

    async def _may_pay(self) -> None:
        if self.before_request is not None:
            await self.before_request()

    def _headers(self, affinity: str) -> dict[str, str]:
        headers = {"x-session-affinity": affinity}
        if self.api_token:
            headers["Authorization"] = f"Bearer {self.api_token}"
        return headers

    def _queue(self, affinity: str) -> AsyncQueue:
        assert self.run_url is not None
        return AsyncQueue(self.http, self.run_url, self._headers(affinity))

    def _result(self, payload: dict[str, Any], latency: float, *, via_async: bool, affinity: str) -> ChatResult:
        body = payload.get("result", payload) if isinstance(payload.get("result"), dict) else payload
        served = str(body.get("model") or self.model)
        try:
            choice = body["choices"][0]
            message = choice.get("message") or {}
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            usage = usage_from_response(body, self.prices, self.model)
            # Billed even though unusable: `_billed` tells the hook like any other paid request.
            billed = ChatResult(None, [], None, None, served, usage, latency, payload) if (
                usage.prompt_tokens + usage.completion_tokens) else None
            raise Unusable(f"model answered without a completion ({type(exc).__name__})", billed) from None
        if served != self.model:
            log.warning("model served differs from requested (priced as served)",
                        extra={"requested": self.model, "served": served})
        usage = usage_from_response(body, self.prices, self.model)
        if via_async:
            usage = Usage(**{**usage.__dict__, "async_requests": 1})
        log.info("model request", extra={"model": served, "prompt_tokens": usage.prompt_tokens,
                                         "cached_tokens": usage.cached_tokens, "latency_s": round(latency, 3),
                                         "completion_tokens": usage.completion_tokens,
                                         "reasoning_tokens": usage.reasoning_tokens, "async": via_async,
                                         "affinity": affinity})
        result = ChatResult(content=message.get("content"), tool_calls=list(message.get("tool_calls") or []),
                            reasoning=message.get("reasoning_content") or message.get("reasoning"),
                            finish_reason=choice.get("finish_reason"), model=served, usage=usage, latency_s=latency,
                            payload=payload)
        return result

    async def _billed(self, payload: dict[str, Any], latency: float, *, via_async: bool, affinity: str,
                      charge_key: str | None = None) -> ChatResult:
        """An answer that arrived (not a replay): its request was paid for, usable or not."""
        try:
            result = self._result(payload, latency, via_async=via_async, affinity=affinity)
        except Unusable as exc:
            if exc.billed is not None:
                await self._paid(dataclasses.replace(exc.billed, charge_key=charge_key))
            raise
        return await self._paid(dataclasses.replace(result, charge_key=charge_key))

    async def _paid(self, result: ChatResult) -> ChatResult:
        """A request that was billed: tell the hook (a replayed answer was paid for when it arrived)."""
        if self.on_request is not None and inspect.isawaitable(told := self.on_request(result)):
            await told
        return result
