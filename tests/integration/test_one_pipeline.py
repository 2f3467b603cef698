"""One review pipeline: the same pull request, reviewed by the service's worker and by the Action, publishes the
same review and the same check run (what differs is only where they run: Redis or none, a lease or none)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx

from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import bug_finding, deliver, open_pull, payload, run_worker_until_idle
from tests.integration.test_action import pr_event, run_action

MARKER = re.compile(r"<!--.*?-->", re.S)  # signed markers name the run (a delivery or a workflow run)


def findings() -> str:
    return findings_json([bug_finding(),
                          bug_finding(path="app/other.py", line=3, title="Helper never closes the file",
                                      severity="minor")],
                         "total() now returns an average.")


def published(github: FakeGitHub, number: int) -> dict[str, Any]:
    """What a reader of the pull request sees: the review, its inline comments and the check run."""
    [review] = github.reviews[(REPO, number)]
    [check] = [c for c in github.check_runs.values() if c["external_id"] == str(number)]

    def clean(text: str) -> str:
        return MARKER.sub("", text).replace(f"/pull/{number}", "/pull/N").strip()

    return {"event": review["event"], "body": clean(review["body"]),
            "comments": sorted((c["path"], c["line"], c.get("side"), clean(c["body"])) for c in review["comments"]),
            "check": (check["status"], check["conclusion"], check["output"]["title"],
                      clean(check["output"]["summary"]),
                      [(a["path"], a["start_line"], a["annotation_level"], a["message"])
                       for a in check["output"].get("annotations", [])])}


async def test_the_worker_and_the_action_publish_the_same_review(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    fake_model.script_reply(findings())
    by_worker = open_pull(fake_github, 7)
    assert deliver(web, "pull_request", payload("pull_request.opened", by_worker)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    worker_requests = len(fake_model.review_requests())

    fake_model.script_reply(findings())
    by_action = open_pull(fake_github, 8)
    event = pr_event(by_action)
    event["number"] = event["pull_request"]["number"] = 8
    done = run_action(tmp_path, fake_github, fake_model, "pull_request", event)
    assert done.returncode == 0, done.stderr

    assert published(fake_github, 7) == published(fake_github, 8)
    # The same prompt and the same verification request, each paid once.
    asked = [r.json["messages"] for r in fake_model.requests]
    assert len(asked) == 4 and len(fake_model.review_requests()) == 2 * worker_requests == 2
    assert asked[:2] == asked[2:]
    worker = published(fake_github, 7)
    assert len(worker["comments"]) == 1 and "Outside the diff" in worker["body"] and worker["check"][1] == "neutral"
