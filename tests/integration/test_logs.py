"""Structured logs: one JSON object a line, every line of a job naming its delivery, job, repo, PR and SHA."""

from __future__ import annotations

import json
import logging
import os
import pty
from collections.abc import Iterator

import httpx
import pytest

from reviewbot.observe.jobcontext import bind
from reviewbot.observe.logformat import wants_json
from reviewbot.observe.logs import setup_logging
from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import bug_finding, deliver, open_pull, payload, run_worker_until_idle


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:], root.level = handlers, level


async def test_every_line_of_a_review_is_json_with_its_delivery_job_repo_pr_and_sha(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel,
        capsys: pytest.CaptureFixture[str], restore_logging: None) -> None:
    setup_logging(settings.secrets, logging.INFO, "json")
    pull = open_pull(fake_github)
    fake_model.script_reply(findings_json([bug_finding()]))
    assert deliver(web, "pull_request", payload("pull_request.opened", pull), delivery="guid-77").status_code == 202
    await run_worker_until_idle(settings, redis_url)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    events = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"ts", "level", "logger", "msg"} <= set(e) for e in events)

    stored = next(e for e in events if e["msg"] == "webhook stored")
    assert stored["delivery"] == "guid-77" and stored["event"] == "pull_request"
    job_lines = [e for e in events if e["logger"] != "reviewbot.webhooks.server" and "job_id" in e]
    messages = {e["msg"] for e in job_lines}
    assert {"review started", "model request", "review finished", "installation token issued"} <= messages
    for event in job_lines:
        assert event["delivery"] == "guid-77", event
        assert event["job_id"].startswith("reviewbot:review:") and (event["repo"], event["pr"]) == (REPO, 7), event
        assert pull["head"]["sha"].startswith(event["sha"]), event
    text = "\n".join(lines)
    for secret in [settings.cloudflare_api_token, settings.github_webhook_secret, *fake_github.tokens]:
        assert secret and secret not in text


def test_logs_are_text_for_a_person_at_a_terminal_and_json_otherwise(
        capsys: pytest.CaptureFixture[str], restore_logging: None) -> None:
    master, slave = pty.openpty()
    read, write = os.pipe()
    with os.fdopen(slave, "w") as terminal, os.fdopen(write, "w") as pipe:
        assert not wants_json("auto", terminal) and wants_json("auto", pipe)
        assert wants_json("json", terminal) and not wants_json("text", pipe)
    os.close(master)
    os.close(read)
    setup_logging(["hunter2-secret"], logging.INFO, "text")
    with bind(delivery="guid-1", job_id="job-9", repo=REPO, pr=3, sha="abc123"):
        logging.getLogger("reviewbot.test").info("used hunter2-secret here")
    [line] = capsys.readouterr().err.splitlines()
    assert "INFO reviewbot.test: used *** here" in line
    assert "delivery=guid-1" in line and "job_id=job-9" in line and f"repo={REPO}" in line and "sha=abc123" in line
