"""Faults with real processes: a worker SIGKILLed mid-review, Redis restarted under a running service.

Each test runs `reviewbot worker` (and `reviewbot serve` where a separate process matters) as subprocesses
against the fakes, and checks what a user sees on the pull request: one review, one check run that completed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from redis import Redis

from tests.conftest import MODEL_TOKEN, REPO, WEBHOOK_SECRET
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import BASE_CALC, HEAD_CALC, bug_finding, deliver, open_pull, payload
from tests.processes import KillableRedis, leaked, wait_for, web, worker


def secrets_of(env: dict[str, str], github: FakeGitHub) -> list[str]:
    return [env["GITHUB_PRIVATE_KEY"], WEBHOOK_SECRET, MODEL_TOKEN, *github.tokens]


def completed_runs(github: FakeGitHub) -> list[dict[str, Any]]:
    return [run for run in github.check_runs.values() if run["status"] == "completed"]


@pytest.mark.parametrize("moment", ["during the model call", "after the review was posted"])
def test_a_killed_worker_s_review_is_run_again_after_its_timeout_and_lands_once(
        moment: str, env: dict[str, str], web: httpx.Client, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    # arq keeps a job "in progress" for REVIEWBOT_JOB_TIMEOUT + 10 s; after that any worker runs it again.
    env = env | {"REVIEWBOT_JOB_TIMEOUT": "5", "REVIEWBOT_WRITE_INTERVAL": "0.5"}
    pull = open_pull(fake_github)
    if moment == "during the model call":
        fake_model.script_delay(30)  # the first worker dies while this answer is still on its way
        fake_model.script_reply(findings_json([bug_finding()]))
    fake_model.script_reply(findings_json([bug_finding()]))
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202

    with worker(env, tmp_path, "first") as first:
        if moment == "during the model call":
            wait_for(lambda: len(fake_model.requests) == 1, 30, "the model call", every=0.01)
        else:
            wait_for(lambda: fake_github.reviews[(REPO, 7)], 30, "the review", every=0.002)
        first.kill()
    assert not completed_runs(fake_github)  # it really died in the middle

    with worker(env, tmp_path, "second") as second:
        wait_for(lambda: completed_runs(fake_github), 40, "the check run to complete")
    assert "try=2" in second.text()  # arq ran the same job again

    [review] = fake_github.reviews[(REPO, 7)]
    assert [c["line"] for c in review["comments"]] == [bug_finding()["line"]]
    [check] = fake_github.check_runs.values()
    assert check["status"] == "completed"
    assert [h.get("status") for h in check["history"]].count("completed") == 1
    assert len(fake_model.requests) == 2  # the re-run asks the model again (see Limits in the README)
    assert leaked(first.text() + second.text(), secrets_of(env, fake_github)) == []


def test_redis_restarted_under_a_running_service(env: dict[str, str], fake_github: FakeGitHub,
                                                 fake_model: FakeModel, tmp_path: Path) -> None:
    redis = KillableRedis()
    env = env | {"REDIS_URL": redis.start(), "REVIEWBOT_JOB_TIMEOUT": "5", "REVIEWBOT_INSTALLATION_CONCURRENCY": "1"}
    pulls = [fake_github.add_pull(REPO, n, base_files={"app/calc.py": BASE_CALC}, title=f"Change {n}",
                                  head_files={"app/calc.py": HEAD_CALC + f"# {n}\n"}) for n in (7, 8, 9, 10)]
    fake_model.script_delay(3)  # PR 7's review is waiting for the model while Redis goes away
    try:
        with web(env, tmp_path) as (_, client), worker(env, tmp_path) as service_worker:
            for pull in pulls[:3]:
                assert deliver(client, "pull_request", payload("pull_request.opened", pull)).status_code == 202
            wait_for(lambda: len(fake_model.requests) == 1, 30, "the first review to reach the model")
            with Redis.from_url(redis.url) as r:
                assert r.zcard("arq:queue") == 3  # 7 running, 8 and 9 waiting for the installation's slot
            redis.kill()

            down = deliver(client, "pull_request", payload("pull_request.opened", pulls[3]), delivery="guid-10")
            assert down.status_code == 503
            assert client.get("/healthz").status_code == 503
            wait_for(lambda: fake_model.requests[0].finished, 10, "the model to answer while Redis is down")
            redis.start()  # the same append-only file: the queue is back

            wait_for(lambda: client.get("/healthz").status_code == 200, 10, "the web app to reconnect")
            again = deliver(client, "pull_request", payload("pull_request.opened", pulls[3]), delivery="guid-10")
            assert again.status_code == 202 and again.json()["status"] == "queued"
            wait_for(lambda: len(completed_runs(fake_github)) == 4, 60, "all four reviews")
            assert service_worker.proc.poll() is None  # the worker rode it out
        logs = (tmp_path / "web.log").read_text() + (tmp_path / "worker.log").read_text()
    finally:
        redis.close()

    for n in (7, 8, 9, 10):
        assert len(fake_github.reviews[(REPO, n)]) == 1, n
    assert len(fake_github.check_runs) == 4
    assert "Traceback" not in logs
    assert leaked(logs, secrets_of(env, fake_github)) == []
