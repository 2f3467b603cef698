"""Issue 30's promises of `reviewbot action`: a stable marker key, exit 2 for every failure, one refusal per person."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel
from tests.integration.test_action import NUMBER, comment_event, pr_event, pull, run_action

__all__ = ["pull"]  # test_action.py's fixture, imported so that pytest finds it here too



def test_a_crash_exits_2_and_the_check_run_and_the_summary_say_the_review_failed(
        pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    # An answer reviewbot cannot handle, after the check run opened: the commits list holds no commit objects.
    fake_github.inject("GET", rf"/repos/{REPO}/pulls/{NUMBER}/commits", 200, ["not a commit"], times=5)
    done = run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull))
    assert done.returncode == 2  # not 1, which says a finding reached the blocking severity
    assert "::error title=reviewbot::an internal error in reviewbot" in done.stderr
    assert "AttributeError" in done.stderr  # the traceback is in the job's log
    [check] = fake_github.check_runs.values()
    assert check["status"] == "completed" and check["output"]["title"] == "Review failed"
    assert "**The review failed.** an internal error" in (tmp_path / "summary.md").read_text()
    assert fake_github.reviews[(REPO, NUMBER)] == []


def test_a_keyless_model_without_a_marker_secret_is_refused_before_anything_is_paid_or_posted(
        pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub, fake_model: FakeModel,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fake_model, "api_token", None)  # a model server of one's own, which asks for no key
    done = run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull), **{"api-token": ""})
    assert done.returncode == 2
    [error] = [line for line in done.stderr.splitlines() if line.startswith("::error")]
    assert "`marker-secret`" in error and "secrets.REVIEWBOT_MARKER_SECRET" in error
    summary = (tmp_path / "summary.md").read_text()
    assert "**The review failed.**" in summary and "marker-secret" in summary and "secrets." in summary
    assert fake_model.requests == [] and fake_github.check_runs == {} and fake_github.reviews[(REPO, NUMBER)] == []


def test_a_keyless_model_with_a_marker_secret_reviews_a_commit_once(
        pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub, fake_model: FakeModel,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fake_model, "api_token", None)
    keyless = {"api-token": "", "marker-secret": "a repository secret"}
    assert run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull), **keyless).returncode == 0
    # The next run has a new workflow token; the marker's key is the secret, so it still knows the commit.
    again = run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull, "reopened"), **keyless)
    assert again.returncode == 0 and "already reviewed" in again.stdout
    assert len(fake_model.review_requests()) == 1 and len(fake_github.reviews[(REPO, NUMBER)]) == 1


def test_a_read_only_commenter_is_told_once_per_pull_request_and_person(
        pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    asks = [("drive-by", "NONE", "@reviewbot review"), ("drive-by", "NONE", "@reviewbot full review"),
            ("Drive-By", "NONE", "@reviewbot help"), ("reader", "READ_ONLY", "@reviewbot review")]
    for login, association, text in asks:
        done = run_action(tmp_path, fake_github, fake_model, "issue_comment",
                          comment_event(fake_github, text, association, login=login))
        assert done.returncode == 0, done.stderr
    replies = [c for c in fake_github.issue_comments[(REPO, NUMBER)] if "write access" in c["body"]]
    assert len(replies) == 2  # one for drive-by (logins ignore case), one for reader
    assert fake_model.requests == [] and fake_github.reviews[(REPO, NUMBER)] == []

