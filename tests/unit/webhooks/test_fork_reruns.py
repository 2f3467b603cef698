"""Re-run and Re-review on a fork's pull request: GitHub sends no `pull_requests`, our `external_id` names it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from reviewbot.webhooks.events import Ignored, Rerun, decide

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "webhooks"


def fork_event(action: str, external_id: Any) -> dict[str, Any]:
    name = "check_run.rerequested" if action == "rerequested" else "check_run.requested_action"
    payload: dict[str, Any] = copy.deepcopy(json.loads((FIXTURES / f"{name}.json").read_text()))
    payload["check_run"]["pull_requests"] = []  # what GitHub sends for a head in another repository
    payload["check_run"]["external_id"] = external_id
    return payload


def test_a_fork_prs_rerun_and_rereview_reach_the_pull_request_named_by_external_id() -> None:
    rerun = decide("check_run", fork_event("rerequested", "7"))
    assert isinstance(rerun, Rerun) and rerun.numbers == (7,) and not rerun.full
    rereview = decide("check_run", fork_event("requested_action", "7"))
    assert isinstance(rereview, Rerun) and rereview.numbers == (7,) and rereview.full


def test_an_external_id_that_is_not_a_pull_request_number_names_none() -> None:
    for junk in ("", "abc", "-3", "0", "１２", "99999999999", None, 7):
        decision = decide("check_run", fork_event("rerequested", junk))
        assert isinstance(decision, Rerun) and decision.numbers == ()


def test_published_fork_rerequests_without_an_external_id_stay_unmatched() -> None:
    # GitHub's own examples of a rerequest with no pull request (octokit/webhooks), another App's run.
    lines = (FIXTURES / "published" / "check_run.jsonl").read_text().splitlines()
    forks = [json.loads(line) for line in lines if '"rerequested"' in line]
    assert forks and all(not p["check_run"]["pull_requests"] for p in forks)
    assert all(decide("check_run", p) == Rerun(p["installation"]["id"], p["repository"]["full_name"],
                                               p["check_run"]["head_sha"], (), False) for p in forks)
    assert isinstance(decide("check_suite", {"action": "completed"}), Ignored)
