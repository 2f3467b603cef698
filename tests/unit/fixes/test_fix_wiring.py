"""How fixes are asked for and allowed: the Fix button's webhook, its action's limits, the manifest's permission."""

from __future__ import annotations

import json
from pathlib import Path

from reviewbot.app.setup.manifest import CHECKOUT_MANIFEST, build_manifest
from reviewbot.jobs.pr_review.checkrun import FIX_ACTION, RERUN_ACTION
from reviewbot.webhooks.events import FixButton, Rerun, decide

FIXTURE = Path(__file__).parents[2] / "fixtures" / "webhooks" / "check_run.requested_action.json"


def test_the_fix_button_is_a_fix_of_the_pull_requests_findings_and_re_review_stays_a_rerun() -> None:
    data = json.loads(FIXTURE.read_text())
    assert isinstance(decide("check_run", data), Rerun)
    data["requested_action"] = {"identifier": "fix"}
    button = decide("check_run", data)
    assert isinstance(button, FixButton) and button.sender == data["sender"]["login"]
    assert button.head_sha == data["check_run"]["head_sha"] and button.numbers


def test_the_actions_fit_githubs_limits() -> None:
    for action in (RERUN_ACTION, FIX_ACTION):
        assert len(action["label"]) <= 20 and len(action["description"]) <= 40 and len(action["identifier"]) <= 20


def test_the_manifest_asks_for_contents_write_only_for_pushed_fixes() -> None:
    def contents(push: bool) -> str:
        manifest = build_manifest(CHECKOUT_MANIFEST, public_url="https://r.example.com",
                                  redirect_url="https://r.example.com/setup/callback", push_fixes=push)
        return str(manifest["default_permissions"]["contents"])

    assert (contents(False), contents(True)) == ("read", "write")
