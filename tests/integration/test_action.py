"""`reviewbot action` as a workflow step runs it: a subprocess with an Actions environment (GITHUB_EVENT_NAME,
GITHUB_EVENT_PATH, INPUT_* with their hyphens), GitHub's published webhook examples as the event payload, the
workflow's plain token against the fake GitHub, and the fake model. No Redis, no App JWT."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import INSTALLATION, MODEL_TOKEN, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import HEAD_CALC, bug_finding, open_pull
from tests.integration.test_github_contract import published

NUMBER = 7


def example(event: str, action: str) -> dict[str, Any]:
    """A published example of `event.action`, one without an installation first (an Actions payload names none;
    where GitHub publishes only App deliveries, the installation is taken out)."""
    found = [body for name, body in published() if name == event and body.get("action") == action]
    body = sorted(found, key=lambda b: "installation" in b)[0]
    body.pop("installation", None)
    return body


def pr_event(pull: dict[str, Any], action: str = "opened", before: str | None = None) -> dict[str, Any]:
    body = example("pull_request", action)
    body["number"] = NUMBER
    body["repository"]["full_name"] = REPO
    body["pull_request"] |= {"number": NUMBER, "draft": False,
                             "head": {**body["pull_request"]["head"], "sha": pull["head"]["sha"]},
                             "base": {**body["pull_request"]["base"], "sha": pull["base"]["sha"]}}
    if before is not None:
        body["before"], body["after"] = before, pull["head"]["sha"]
    return body


def comment_event(github: FakeGitHub, text: str, association: str = "OWNER",
                  login: str = "maintainer-mo") -> dict[str, Any]:
    """A comment now on the fake pull request; GitHub's examples comment on an issue, and a comment on a pull
    request carries `issue.pull_request`."""
    stored = github.add_issue_comment(REPO, NUMBER, text, author=login)
    body = example("issue_comment", "created")
    body["repository"]["full_name"] = REPO
    body["issue"] |= {"number": NUMBER, "pull_request": {"url": f"https://api.github.com/repos/{REPO}/pulls/7"}}
    body["comment"] |= {"id": stored["id"], "body": text, "author_association": association,
                        "user": {**body["comment"]["user"], "login": login, "type": "User"}}
    return body


ACTION = [sys.executable, "-m", "reviewbot", "action"]


def run_action(tmp_path: Path, fake_github: FakeGitHub, fake_model: FakeModel, event_name: str,
               event: dict[str, Any], *, job: dict[str, str] | None = None, command: list[str] | None = None,
               **inputs: str) -> subprocess.CompletedProcess[str]:
    """`job`: more of the job's environment (GITHUB_OUTPUT, GITHUB_ACTIONS, GITHUB_WORKSPACE); `command`: instead
    of `python -m reviewbot action`."""
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(event))
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("GITHUB_", "CLOUDFLARE_", "REVIEWBOT_", "INPUT_", "RUNNER_"))}
    env = clean | {
        "GITHUB_EVENT_NAME": event_name, "GITHUB_EVENT_PATH": str(event_path), "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": fake_github.base_url, "GITHUB_RUN_ID": "1234", "GITHUB_RUN_ATTEMPT": "1",
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "RUNNER_TEMP": str(tmp_path / "runner"),
        # What action.yml passes: its inputs, named as GitHub names them (upper case, hyphens kept).
        "INPUT_GITHUB-TOKEN": fake_github.workflow_token(INSTALLATION), "INPUT_API-TOKEN": MODEL_TOKEN,
        "INPUT_MODEL-BASE-URL": f"{fake_model.url}/client/v4/accounts/acc-1/ai/v1",
        "REVIEWBOT_WRITE_INTERVAL": "0.05", "REVIEWBOT_MODEL_BACKOFF": "0.05",
    } | {f"INPUT_{name.upper()}": value for name, value in inputs.items()} | (job or {})
    return subprocess.run(command or ACTION, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)


@pytest.fixture
def pull(fake_github: FakeGitHub, fake_model: FakeModel) -> dict[str, Any]:
    fake_github.add_installation(INSTALLATION, [REPO])
    fake_model.script_reply(findings_json([bug_finding()], "total() now returns an average."))
    return open_pull(fake_github, NUMBER)


@pytest.mark.parametrize("event_name", ["pull_request", "pull_request_target"])
def test_an_opened_pull_request_gets_the_review_the_check_run_and_the_step_summary(
        event_name: str, pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    done = run_action(tmp_path, fake_github, fake_model, event_name, pr_event(pull))
    assert done.returncode == 0, done.stderr
    [review] = fake_github.reviews[(REPO, NUMBER)]
    assert len(review["comments"]) == 1 and "ZeroDivisionError" in review["comments"][0]["body"]
    [check] = fake_github.check_runs.values()
    assert (check["name"], check["status"], check["conclusion"]) == ("reviewbot", "completed", "neutral")
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("## reviewbot") and "check run conclusion: `neutral`" in summary
    assert "1 finding" in summary or "finding" in summary.lower()
    # Only the workflow's token: never an App JWT, never a token minted through the App.
    api = [c for c in fake_github.requests if not c.path.startswith("/_codeload/")]  # the archive needs no token
    assert {c.headers.get("authorization", "").split(" ")[0].lower() for c in api} <= {"token", "bearer"}
    assert not any(c.path.startswith("/app") for c in api)


def test_blocking_severity_fails_the_step(pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub,
                                          fake_model: FakeModel) -> None:
    done = run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull),
                      **{"blocking-severity": "major"})
    assert done.returncode == 1, done.stderr
    assert "::error title=reviewbot::findings reached the blocking severity" in done.stderr
    [check] = fake_github.check_runs.values()
    assert check["conclusion"] == "failure"


def test_a_push_is_reviewed_incrementally_and_a_reviewed_commit_is_not_paid_again(
        pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    assert run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull)).returncode == 0
    # The same commit again (a reopen, a re-delivered event): no model request, nothing posted.
    again = run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull, "reopened"))
    assert again.returncode == 0 and "already reviewed" in again.stdout
    assert len(fake_model.review_requests()) == 1 and len(fake_github.reviews[(REPO, NUMBER)]) == 1
    # A push that adds a function: the model reports the old bug again; it is not repeated.
    old_head = pull["head"]["sha"]
    pushed = fake_github.update_head(REPO, NUMBER, {"app/calc.py": HEAD_CALC + "\n\ndef extra():\n    return 1\n"})
    fake_model.script_reply(findings_json([bug_finding()], "Still an average."))
    done = run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pushed, "synchronize", old_head))
    assert done.returncode == 0, done.stderr
    first, second = fake_github.reviews[(REPO, NUMBER)]
    assert len(first["comments"]) == 1 and second["comments"] == []
    assert {c["conclusion"] for c in fake_github.check_runs.values()} == {"neutral"}
    assert len(fake_github.check_runs) == 2  # one per commit


def test_a_comment_command_from_a_writer_reviews_again(pull: dict[str, Any], tmp_path: Path,
                                                       fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    assert run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull)).returncode == 0
    fake_model.script_reply(findings_json([bug_finding()], "Again."))
    done = run_action(tmp_path, fake_github, fake_model, "issue_comment",
                      comment_event(fake_github, "Rebased.\n\n@reviewbot full review"))
    assert done.returncode == 0, done.stderr
    assert len(fake_github.reviews[(REPO, NUMBER)]) == 2  # an explicit request reviews a reviewed commit again
    assert len(fake_github.reviews[(REPO, NUMBER)][1]["comments"]) == 1  # full: earlier findings ignored
    assert any(r["content"] == "eyes" for rs in fake_github.reactions.values() for r in rs)


def test_a_comment_from_someone_without_write_access_reviews_nothing(
        pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    done = run_action(tmp_path, fake_github, fake_model, "issue_comment",
                      comment_event(fake_github, "@reviewbot review", association="CONTRIBUTOR"))
    assert done.returncode == 0, done.stderr
    assert fake_model.requests == [] and fake_github.reviews[(REPO, NUMBER)] == []
    [_, reply] = fake_github.issue_comments[(REPO, NUMBER)]
    assert "write access" in reply["body"]


@pytest.mark.parametrize(("method", "path", "needed"), [
    ("POST", rf"/repos/{REPO}/check-runs", "checks: write"),
    ("POST", rf"/repos/{REPO}/pulls/{NUMBER}/reviews", "pull-requests: write"),
])
def test_a_token_without_a_permission_is_explained(method: str, path: str, needed: str, pull: dict[str, Any],
                                                   tmp_path: Path, fake_github: FakeGitHub,
                                                   fake_model: FakeModel) -> None:
    fake_github.inject(method, path, 403, {"message": "Resource not accessible by integration",
                                           "documentation_url": "https://docs.github.com/rest"}, times=5)
    done = run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull))
    assert done.returncode == 2
    assert f"needs `{needed}`" in done.stderr and "permissions:" in done.stderr
    assert "pull_request_target" in done.stderr  # what to do on a fork's pull request


def test_other_events_do_nothing(pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub,
                                 fake_model: FakeModel) -> None:
    labeled = pr_event(pull)
    labeled["action"] = "labeled"
    done = run_action(tmp_path, fake_github, fake_model, "pull_request", labeled)
    assert done.returncode == 0 and "nothing to do" in done.stdout
    assert fake_model.requests == [] and fake_github.check_runs == {}


@pytest.mark.parametrize(("inputs", "named"), [
    # GitHub passes a fork's `pull_request` no secret at all: the missing marker key is said first.
    ({"api-token": ""}, "`marker-secret`"),
    # With a marker key from elsewhere, the action starts without a model key (the fake model's URL is not Workers
    # AI, and a server of one's own needs none) and the model refuses it: the check run it opened ends.
    ({"api-token": "", "marker-secret": "not from a secret"}, "CLOUDFLARE_API_TOKEN"),
])
def test_a_forks_pull_request_without_the_models_key_says_to_use_pull_request_target(
        inputs: dict[str, str], named: str, pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    event = pr_event(pull)
    event["pull_request"]["head"]["repo"] = {**event["pull_request"]["head"]["repo"], "full_name": "someone/widgets"}
    done = run_action(tmp_path, fake_github, fake_model, "pull_request", event, **inputs)
    assert done.returncode == 2
    assert named in done.stderr and "gets no secrets" in done.stderr  # and the error names the withheld secret
    assert "pull_request_target" in done.stderr
    assert all(run["status"] == "completed" for run in fake_github.check_runs.values())
