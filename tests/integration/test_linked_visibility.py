"""Confidentiality follows visibility: a review reads, and so may repeat, only the linked issues everyone who can read
the pull request can read too; every other one is "not read" in one wording, never requested."""

from __future__ import annotations

import json
from typing import Literal

import httpx
import pytest

from reviewbot.review.linked.readable import UNREADABLE
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel
from tests.gfm import posted_by_bot
from tests.helpers import BASE_CALC, HEAD_CALC, deliver, payload, run_worker_until_idle

PRIVATE = "acme/private-tracker"  # the App is installed there: it could read the issue, and must not repeat it
PAYROLL = "acme/payroll"  # installed too, private, and in no allow-list
MISSING = "acme/nowhere"  # no such repository: GitHub answers 404
PUBLIC = "octo-org/open-source"  # public, outside the installation: any token reads it
SECRET_TITLE, SECRET_BODY = "Acquire Initech in March", "Board approved the offer; nobody outside legal knows."
BODY = (f"Fixes #12. Related: {PRIVATE}#3, {MISSING}#5, {PUBLIC}#8 and {PAYROLL}#4.")
ORG_DEFAULTS = f"linked_issues:\n  readable_repos: [{PRIVATE}]\n"


def _setup(github: FakeGitHub, visibility: Literal["public", "private", "internal"], org_defaults: str | None,
           repo_config: str = "") -> dict[str, object]:
    github.add_installation(INSTALLATION, [REPO, PRIVATE, PAYROLL, "acme/.github"])
    if org_defaults is not None:
        github.set_branch("acme/.github", "main", {".github/reviewbot.yml": org_defaults})
    github.set_visibility(REPO, visibility)
    github.set_visibility(PUBLIC, "public")
    github.add_issue(REPO, 12, "Totals are wrong", "total() must add the prices.")
    github.add_issue(PRIVATE, 3, SECRET_TITLE, SECRET_BODY)
    github.add_issue(PAYROLL, 4, "Salaries table", "Everyone's salary, by name.")
    github.add_issue(PUBLIC, 8, "Public tracker issue", "Make totals exact for the community.")
    base = {"app/calc.py": BASE_CALC, **({".github/reviewbot.yml": repo_config} if repo_config else {})}
    return github.add_pull(REPO, 7, base_files=base, head_files={**base, "app/calc.py": HEAD_CALC},
                           title="Rewrite total", body=BODY)


async def _review(web: httpx.Client, settings: Settings, redis_url: str, model: FakeModel,
                  pull: dict[str, object]) -> str:
    """Run one review whose model claims a verdict for every issue, shown or not; returns its prompt."""
    verdicts = [{"issue": label, "addressed": "no", "note": "not done"}
                for label in ("#12", f"{PUBLIC}#8", f"{PRIVATE}#3", f"{MISSING}#5", f"{PAYROLL}#4")]
    model.script_reply(json.dumps({"summary": "Totals rewritten.", "walkthrough": [], "findings": [],
                                   "issues": verdicts}))
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    [request] = model.review_requests()
    return str(request.json["messages"][1]["content"])


def _issue_reads(github: FakeGitHub) -> set[str]:
    return {r.path for r in github.requests if r.method == "GET" and "/issues/" in r.path}


def _posted(github: FakeGitHub) -> str:
    return "\n".join(text for text, _ in posted_by_bot(github, REPO, 7))


async def test_a_public_pull_request_reads_only_its_own_and_public_issues_whatever_the_allow_list(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull = _setup(fake_github, "public", ORG_DEFAULTS)
    prompt = await _review(web, settings, redis_url, fake_model, pull)
    assert "### Issue #12" in prompt and "total() must add the prices." in prompt
    assert f"### Issue {PUBLIC}#8" in prompt and "Make totals exact for the community." in prompt
    everything_asked = json.dumps([r.json for r in fake_model.requests])
    posted = _posted(fake_github)
    for secret in (SECRET_TITLE, SECRET_BODY, "Salaries table", "salary"):
        assert secret not in everything_asked and secret not in posted
    # Not even requested: the rule said no before GitHub could answer anything.
    assert _issue_reads(fake_github) == {f"/repos/{REPO}/issues/12", f"/repos/{PUBLIC}/issues/8"}
    asked = {r.path for r in fake_github.requests if r.method == "GET"}
    assert {f"/repos/{PRIVATE}", f"/repos/{MISSING}", f"/repos/{PAYROLL}"} <= asked
    # The private repository, the missing one and the one outside every list read the same, in the prompt and in
    # everything posted: nothing tells which exist or where the App is installed.
    for text, form in ((prompt, "- {}: not read ({})"), (posted, "Addresses `{}`: not read ({}).")):
        lines = [form.format(label, UNREADABLE) for label in (f"{PRIVATE}#3", f"{MISSING}#5", f"{PAYROLL}#4")]
        assert all(line in text for line in lines), text
    assert "HTTP" not in posted
    [review] = fake_github.reviews[(REPO, 7)]
    assert review["body"].count("— not done") == 2  # verdicts on issues the model was not shown are dropped
    assert "Addresses #12: no — not done." in posted and f"Addresses `{PUBLIC}#8`: no — not done." in posted
    assert not fake_github.take_violations()


@pytest.mark.parametrize("visibility", ["private", "internal"])
async def test_a_private_pull_request_reads_what_the_organisation_allows_and_no_more(
        visibility: Literal["private", "internal"], web: httpx.Client, settings: Settings, redis_url: str,
        fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    # The repository's own file cannot widen the organisation's list: acme/payroll stays unread.
    repo_config = f"linked_issues:\n  readable_repos: [{PRIVATE}, {PAYROLL}]\n"
    pull = _setup(fake_github, visibility, ORG_DEFAULTS, repo_config)
    prompt = await _review(web, settings, redis_url, fake_model, pull)
    assert f"### Issue {PRIVATE}#3" in prompt and SECRET_BODY in prompt
    assert f"### Issue {PUBLIC}#8" in prompt
    assert f"- {PAYROLL}#4: not read ({UNREADABLE})" in prompt and "Salaries table" not in prompt
    assert _issue_reads(fake_github) == {f"/repos/{REPO}/issues/12", f"/repos/{PRIVATE}/issues/3",
                                         f"/repos/{PUBLIC}/issues/8"}
    posted = _posted(fake_github)
    assert f"Addresses `{PRIVATE}#3`: no — not done." in posted
    assert f"Addresses `{PAYROLL}#4`: not read ({UNREADABLE})." in posted
    assert "`linked_issues` is read only from the organisation's `.github` repository" in posted
    assert not fake_github.take_violations()


async def test_without_the_allow_list_a_private_pull_request_reads_no_other_private_repository(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull = _setup(fake_github, "private", None)
    prompt = await _review(web, settings, redis_url, fake_model, pull)
    assert SECRET_BODY not in json.dumps([r.json for r in fake_model.requests])
    assert f"- {PRIVATE}#3: not read ({UNREADABLE})" in prompt and f"### Issue {PUBLIC}#8" in prompt
    assert _issue_reads(fake_github) == {f"/repos/{REPO}/issues/12", f"/repos/{PUBLIC}/issues/8"}
    posted = _posted(fake_github)
    assert f"Addresses `{PRIVATE}#3`: not read ({UNREADABLE})." in posted and SECRET_TITLE not in posted
    assert not fake_github.take_violations()
