"""What a paid request holds before it is sent and when it is charged: the larger output limit of a retried truncated
answer is held; an answer from the asynchronous queue is charged before it is remembered, and only once."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from reviewbot.errors import ModelQueued
from reviewbot.inference.budget import DailyBudget, Limits
from reviewbot.inference.client import ChatResult
from reviewbot.inference.factory import model_client
from reviewbot.inference.memo import RedisMemo
from reviewbot.inference.structured import LENGTH_RETRY_FLOOR, StructuredReviewer
from reviewbot.observe.jobcontext import bind, record_request
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.model import FakeModel, findings_json

PROMPT = [{"role": "system", "content": "You review code."}, {"role": "user", "content": "The diff: +x = 1"}]


async def test_a_retried_truncated_answer_holds_the_larger_output_limit_it_asks_for(
        settings: Settings, fake_model: FakeModel) -> None:
    fake_model.script_reply('{"summary": "The change', finish_reason="length")  # cut off at the output limit
    fake_model.script_reply(findings_json([]))
    told: list[int] = []  # what the daily budget is asked to hold before each request

    async def gate(held_tokens: int, held_usd: float) -> None:
        told.append(held_tokens)

    async with httpx.AsyncClient() as http:
        reviewer = StructuredReviewer(model_client(settings, http), gate=gate)
        await reviewer.review(PROMPT, "ses_truncated")
    first, again = (r.json for r in fake_model.review_requests())
    assert again["max_completion_tokens"] >= LENGTH_RETRY_FLOOR > first["max_completion_tokens"]
    print(f"asked for {again['max_completion_tokens']:,} completion tokens; held {told[1]:,}")
    assert told[1] >= again["max_completion_tokens"]  # the hold covers all the room the retry asks for
    assert reviewer.allowance.held == 0


async def test_a_model_the_catalogue_does_not_know_gets_twice_the_room_not_the_reasoning_floor(
        settings: Settings, fake_model: FakeModel) -> None:
    """A self-hosted model's window is a guess: a jump to 32k tokens would keep a CPU server busy for hours."""
    fake_model.stand_ins["local-coder"] = "@cf/moonshotai/kimi-k2.6"
    local = dataclasses.replace(settings, model="local-coder", max_completion_tokens=300,
                                prices={"local-coder": settings.prices["@cf/moonshotai/kimi-k2.6"]})
    fake_model.script_reply('{"summary": "The change', finish_reason="length")
    fake_model.script_reply(findings_json([]))
    async with httpx.AsyncClient() as http:
        await StructuredReviewer(model_client(local, http)).review(PROMPT, "ses_local")
    first, again = (r.json for r in fake_model.review_requests())
    assert first["max_completion_tokens"] == 300
    assert 300 < again["max_completion_tokens"] <= 600 and again["max_tokens"] == again["max_completion_tokens"]


class Crash(BaseException):
    """The worker process dies at this point (OOM killer, a lost machine): nothing after it runs."""


async def test_an_answer_from_the_async_queue_is_charged_before_it_is_remembered_and_only_once(
        settings: Settings, fake_model: FakeModel, redis_url: str) -> None:
    fake_model.async_polls_before_done = 0
    fake_model.script_reply(findings_json([]))
    redis = Redis.from_url(redis_url)
    budget = DailyBudget(redis, Limits())
    memo = RedisMemo(redis, "job-queued")

    async def crash_as_it_arrives(result: ChatResult) -> None:
        raise Crash

    async def crash_once_charged(result: ChatResult) -> None:
        told = record_request(result)
        assert told is not None
        await told
        raise Crash

    async def run(body: dict[str, Any], hook: object) -> ChatResult:
        """One try of the job: its paid requests are charged to the daily budget as they arrive."""
        with bind() as scope:
            scope.charge = functools.partial(budget.charge, INSTALLATION, REPO, "job-queued")
            client.on_request = hook  # type: ignore[assignment]
            return await client.chat(body, affinity="ses_queued", memo=memo)

    async def charged() -> int:
        return (await budget.spent(DailyBudget.scopes(INSTALLATION, REPO)[0])).tokens

    def billed(n: int) -> int:
        usage = fake_model.served[n]["usage"]
        return int(usage["prompt_tokens"] + usage["completion_tokens"])

    try:
        async with httpx.AsyncClient() as http:
            client = dataclasses.replace(model_client(settings, http), prefer_async=True)
            first, second = client.body(PROMPT), client.body([*PROMPT, {"role": "user", "content": "Again."}])
            with pytest.raises(ModelQueued):  # submitted; the job comes back later
                await run(first, record_request)
            with pytest.raises(Crash):  # the answer arrived, and the worker died before charging it
                await run(first, crash_as_it_arrives)
            answer = await run(first, record_request)  # the job's next try
            assert await charged() == billed(0)  # it was paid for: it is charged (it used to be replayed, free)
            assert (await run(first, record_request)).content == answer.content  # a replay costs nothing more
            assert await charged() == billed(0)

            with pytest.raises(ModelQueued):
                await run(second, record_request)
            with pytest.raises(Crash):  # charged, and the worker died before remembering the answer
                await run(second, crash_once_charged)
            await run(second, record_request)  # the next try fetches the same answer again ...
        assert len(fake_model.served) == 2  # the provider billed two requests ...
        assert await charged() == billed(0) + billed(1)  # ... and each is charged exactly once
    finally:
        await redis.aclose()
