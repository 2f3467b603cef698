"""Issue 30's promises of `reviewbot action`: a stable marker key, exit 2 for every failure, one refusal per person."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel
from tests.integration.test_action import NUMBER, pr_event, pull, run_action

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
