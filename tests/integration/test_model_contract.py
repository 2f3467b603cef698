"""The bot against the fake Workers AI held to the pinned model specs: capacity, truncation, queue states, thinking."""

from __future__ import annotations

import dataclasses
import json

import httpx

from reviewbot.settings import Settings
from tests.conftest import MODEL_TOKEN, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import bug_finding
from tests.integration.test_inference import CAPACITY, only_check, review_once

K25, K26, K27 = "@cf/moonshotai/kimi-k2.5", "@cf/moonshotai/kimi-k2.6", "@cf/moonshotai/kimi-k2.7-code"


def test_a_request_outside_the_published_schema_is_refused_and_recorded(fake_model: FakeModel) -> None:
    bare = {"type": "json_schema", "json_schema": {"type": "object"}}  # no `name`, which the schema requires
    body = {"model": K27, "messages": [{"role": "user", "content": "hi"}], "response_format": bare,
            "chat_template_kwargs": {"enable_thinking": False}}
    answer = httpx.post(f"{fake_model.url}/client/v4/accounts/a/ai/v1/chat/completions", json=body,
                        headers={"Authorization": f"Bearer {MODEL_TOKEN}"})
    assert answer.status_code == 400 and answer.json()["errors"][0]["code"] == 5006
    assert len(fake_model.violations) == 1 and "response_format" in fake_model.violations[0]
    fake_model.violations.clear()  # seen; the autouse fixture would fail this test otherwise


async def test_capacity_errors_on_a_model_without_a_queue_are_deferred_until_the_review_completes(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    k27 = dataclasses.replace(settings, model=K27, model_retries=1)
    for _ in range(2):  # two job tries out of capacity, then an answer
        fake_model.script_error(429, CAPACITY)
    fake_model.script_reply(findings_json([bug_finding()]))
    await review_once(web, k27, redis_url, fake_github)
    assert fake_model.async_calls == []  # K2.7-code publishes no async_queue: nothing was queued
    assert len(fake_model.review_requests()) == 3
    assert len(fake_github.reviews[(REPO, 7)]) == 1
    check = only_check(fake_github)
    assert check["status"] == "completed" and check["output"]["title"] == "1 finding"
    told = [h["output"]["summary"] for h in check["history"] if h.get("output")]
    assert any("provider is busy" in summary for summary in told)


async def test_a_queue_that_refuses_a_busy_request_defers_it_instead_of_looping(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    k26 = dataclasses.replace(settings, model=K26, model_retries=1)
    fake_model.script_error(429, CAPACITY)
    fake_model.script_queue_error(400, {"errors": [{"code": 3003, "message": "Request is missing body"}]})
    fake_model.script_error(429, CAPACITY)  # still busy on the next try: deferred again, not queued again
    fake_model.script_reply(findings_json([bug_finding()]))
    await review_once(web, k26, redis_url, fake_github)
    assert len(fake_model.async_calls) == 1  # one refused submission, never retried against the queue
    assert len(fake_model.review_requests()) == 3
    assert len(fake_github.reviews[(REPO, 7)]) == 1


async def test_an_unknown_queue_status_is_not_polled_for_a_day(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    k26 = dataclasses.replace(settings, model=K26, model_retries=1)
    fake_model.script_error(429, CAPACITY)
    fake_model.async_polls_before_done = 0
    fake_model.async_final_status = "failed"
    await review_once(web, k26, redis_url, fake_github)
    polls = [c for c in fake_model.async_calls if "request_id" in c]
    assert len(polls) == 1  # the lost request was forgotten and asked again synchronously
    assert len(fake_github.reviews[(REPO, 7)]) == 1


async def test_a_truncated_answer_is_asked_again_with_more_room(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.script_reply('{"summary": "Looks', finish_reason="length")
    fake_model.script_reply(findings_json([bug_finding()]))
    await review_once(web, settings, redis_url, fake_github)
    first, second = (r.json for r in fake_model.review_requests())
    assert second["max_completion_tokens"] > first["max_completion_tokens"]
    assert second["messages"] == first["messages"]  # the same question, not a repair turn
    assert len(fake_github.reviews[(REPO, 7)]) == 1


async def test_an_answer_truncated_twice_ends_the_review_with_advice(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    for _ in range(2):
        fake_model.script_reply('{"summary": "Looks', finish_reason="length")
    await review_once(web, settings, redis_url, fake_github)
    assert len(fake_model.review_requests()) == 2
    check = only_check(fake_github)
    assert check["conclusion"] == "neutral" and "REVIEWBOT_MAX_COMPLETION_TOKENS" in check["output"]["summary"]


async def test_the_thinking_switch_follows_each_models_schema(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    for number, model in ((7, K25), (8, K26), (9, K27)):
        await review_once(web, dataclasses.replace(settings, model=model, thinking=False), redis_url, fake_github,
                          number=number)
    sent = {r.json["model"]: r.json.get("chat_template_kwargs") for r in fake_model.requests}
    # K2.7-code only accepts enable_thinking: true, so `off` is not sent at all.
    assert sent == {K25: {"enable_thinking": False}, K26: {"enable_thinking": False}, K27: None}
    assert all(len(fake_github.reviews[(REPO, n)]) == 1 for n in (7, 8, 9))
    assert json.dumps(fake_model.violations) == "[]"
