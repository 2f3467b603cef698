"""Confidentiality follows visibility: the organisation's free text (instructions, path instructions, learnings)
reaches a public repository's review only when its `.github` repository is public too or the organisation opted in;
its settings apply everywhere."""

from __future__ import annotations

import json
from typing import Literal

import httpx
import pytest

from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json, thread_question
from tests.gfm import posted_by_bot
from tests.helpers import BASE_CALC, HEAD_CALC, bug_finding, deliver, payload, run_worker_until_idle
from tests.integration.test_conversations import reply_event

Seen = Literal["public", "private", "internal"]
ORG = "acme/.github"
SECRET = "Check every total against the Nightingale ledger before the March close."
PATH_SECRET = "Calculations here feed the unannounced Initech payroll migration."
DEFAULTS = (f"instructions: {SECRET!r}\npath_instructions:\n  'app/**': {PATH_SECRET!r}\nfocus: [security]\n"
            "learnings:\n  - rule: divides by the item count\n    reason: Kept for the Initech auditors\n")
OPT_IN = "public_repos:\n  use_org_text: true\n"
DROPPED = "were not used: that repository is not public and this one is"


async def _review(web: httpx.Client, settings: Settings, redis_url: str, github: FakeGitHub, model: FakeModel, *,
                  repo_is: Seen, org_is: Seen, defaults: str = DEFAULTS) -> tuple[str, str, dict[str, object]]:
    """One review of a pull request of REPO under the organisation's defaults, whose model finds what the
    organisation's learning holds back; (everything the model was asked, everything posted, the pull request)."""
    model.default = answering(findings_json([bug_finding()]))
    github.add_installation(INSTALLATION, [REPO, ORG])
    github.set_branch(ORG, "main", {".github/reviewbot.yml": defaults})
    github.set_visibility(REPO, repo_is)
    github.set_visibility(ORG, org_is)
    base = {"app/calc.py": BASE_CALC}
    pull = github.add_pull(REPO, 7, base_files=base, head_files={**base, "app/calc.py": HEAD_CALC},
                           title="Rewrite total", body="Totals are exact now.")
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    assert model.review_requests()
    asked = json.dumps([r.json for r in model.requests])
    return asked, "\n".join(text for text, _ in posted_by_bot(github, REPO, 7)), pull


async def test_a_public_repository_never_gets_a_private_organisations_text_but_keeps_its_settings(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    asked, posted, _ = await _review(web, settings, redis_url, fake_github, fake_model, repo_is="public",
                                  org_is="private")
    for secret in (SECRET, PATH_SECRET, "Nightingale", "Initech"):
        assert secret not in asked and secret not in posted
    assert "Look hardest at: security" in asked  # a setting, not text: it still applies
    [review] = fake_github.reviews[(REPO, 7)]
    assert [c["body"] for c in review["comments"]]  # the learning, text dropped with it, held nothing back
    assert str(review["body"]).count(DROPPED) == 1  # one line in the coverage notes (and the check run's summary)


@pytest.mark.parametrize(("repo_is", "org_is", "defaults"), [
    ("public", "private", DEFAULTS + OPT_IN),  # the organisation accepts its text on public repositories
    ("public", "internal", DEFAULTS + OPT_IN),
    ("private", "private", DEFAULTS),  # everyone who reads the pull request may read the `.github` repository
    ("internal", "private", DEFAULTS),
    ("public", "public", DEFAULTS),  # the text is public already
])
async def test_the_organisations_text_is_used_where_every_reader_may_read_it(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel,
        repo_is: Seen, org_is: Seen, defaults: str) -> None:
    asked, posted, _ = await _review(web, settings, redis_url, fake_github, fake_model, repo_is=repo_is,
                                  org_is=org_is, defaults=defaults)
    assert SECRET in asked and PATH_SECRET in asked
    assert "Kept for the Initech auditors" in posted  # the learning held the finding back, quoting its reason
    assert DROPPED not in posted


async def test_a_thread_answer_on_a_public_repository_leaves_the_text_out_too(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    *_, pull = await _review(web, settings, redis_url, fake_github, fake_model, repo_is="public", org_is="private")
    [root] = fake_github.review_comments[(REPO, 7)]
    event = reply_event(fake_github, pull, root, "@reviewbot-test why is this a bug?")
    assert deliver(web, "pull_request_review_comment", event).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    [asked] = [r for r in fake_model.requests if thread_question(r.json) is not None]
    assert SECRET not in json.dumps(asked.json) and PATH_SECRET not in json.dumps(asked.json)
