"""What a thread answer may spend: every request (tool turns too) is held against the daily budget first, and each
question counts once against the per-PR and per-person limits, however many tries its job takes."""

from __future__ import annotations

import dataclasses

import httpx
from redis.asyncio import Redis

from reviewbot.inference.budget import DailyBudget, Limits, review_estimate
from reviewbot.jobs.thread_answers.question_limits import count_question
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, thread_question
from tests.helpers import deliver, run_worker_until_idle
from tests.integration.test_conversations import replies, reply_event, reviewed
from tests.integration.test_inference import CAPACITY


async def spent_today(redis_url: str) -> int:
    client = Redis.from_url(redis_url)
    try:
        return (await DailyBudget(client, Limits()).spent(DailyBudget.scopes(INSTALLATION, REPO)[0])).tokens
    finally:
        await client.aclose()


async def test_a_thread_answers_tool_turns_stop_at_the_daily_budget(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    small = dataclasses.replace(settings, max_completion_tokens=1_000, prompt_budget=8_000)
    pull, root = await reviewed(web, small, redis_url, fake_github, fake_model)
    before = await spent_today(redis_url)
    # Room today for what is spent and one answer's estimate; a model that reads files at every turn it may.
    limit = before + review_estimate(small)[1]
    tight = dataclasses.replace(small, daily_budget_tokens=limit)
    fake_model.greedy_tool_calls = [{"name": "read_file", "arguments": {"path": "app/calc.py"}}]
    question = reply_event(fake_github, pull, root, "@reviewbot-test why is this a bug? " + "Explain it. " * 3_000)
    assert deliver(web, "pull_request_review_comment", question).status_code == 202
    await run_worker_until_idle(tight, redis_url)
    asked = [r for r in fake_model.requests if thread_question(r.json) is not None]
    spent = await spent_today(redis_url)
    print(f"limit {limit:,} tokens; spent {spent:,} after {len(asked)} requests of the answer")
    assert len(asked) >= 2  # it did read files, ...
    assert spent <= limit  # ... and stopped before the daily budget was passed


async def test_a_question_counts_once_however_many_tries_its_job_takes(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = Settings.from_mapping({**env, "REVIEWBOT_CONVERSATION_PR_LIMIT": "2"})
    pull, root = await reviewed(web, settings, redis_url, fake_github, fake_model)
    for _ in range(3):  # the model is out of capacity: the question goes to the asynchronous queue ...
        fake_model.script_error(429, CAPACITY)
    fake_model.async_polls_before_done = 2  # ... and its job runs again until the answer is there
    for text in ("@reviewbot-test why?", "@reviewbot-test and the empty list?"):
        assert deliver(web, "pull_request_review_comment", reply_event(fake_github, pull, root, text)).status_code \
            == 202
        await run_worker_until_idle(settings, redis_url)
    assert len(fake_model.async_calls) == 4  # submitted, then polled by three more tries of the first job
    answers = replies(fake_github, root, fake_github.bot_login)
    assert len(answers) == 2 and not any("as many questions" in a["body"] for a in answers)  # two of two


async def test_the_per_person_limit_spans_the_installations_repositories(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    try:
        asked = [await count_question(redis, INSTALLATION, repo, 1, "Alice", comment, 20, 2)
                 for repo, comment in (("acme/widgets", 101), ("acme/gadgets", 202), ("acme/gizmos", 303))]
        assert asked == [True, True, False]  # two questions a day from one person, in whichever repositories
        assert await count_question(redis, INSTALLATION + 1, "other/repo", 1, "alice", 404, 20, 2)  # another org
        assert await count_question(redis, INSTALLATION, "acme/widgets", 1, "alice", 101, 20, 2)  # a retried one
    finally:
        await redis.aclose()
