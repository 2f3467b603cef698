"""Audit fixes where the world changed or GitHub failed: a repository made public since its audit gets no fix pull
request, and a pull request GitHub failed to open is opened by the job's retry from the branch already made,
paying the model once."""

from __future__ import annotations

import httpx

from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel
from tests.helpers import run_worker_until_idle
from tests.integration.test_audit_fixes import SAFE, bot_comments, fix_pulls, fixing
from tests.integration.test_audit_service import ISSUE, ask


async def test_a_repository_made_public_after_its_audit_gets_no_fix_pull_request(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = fixing(env, fake_github, fake_model)
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    fake_github.set_visibility(REPO, "public")  # the audit record says private; GitHub says public now
    ask(web, fake_github, "@reviewbot-test fix all")
    await run_worker_until_idle(settings, redis_url)
    assert fix_pulls(fake_github) == [] and fake_github.git_commits == []
    assert not [ref for ref in fake_github.branches if ref[0] == REPO and ref[1].startswith("reviewbot/fix/")]
    assert fake_model.fix_requests() == []
    refusal = bot_comments(fake_github, ISSUE)[-1]
    assert "this repository is public" in refusal and "🔴 **Critical** 1" in refusal
    assert "app/db.py" not in refusal


async def test_a_pull_request_github_failed_to_open_is_opened_by_the_retry_and_paid_once(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = fixing(env, fake_github, fake_model)
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    fake_github.inject("POST", f"/repos/{REPO}/pulls", 502, {"message": "Server Error"})  # the branch is made
    ask(web, fake_github, "@reviewbot-test fix CWE-89")
    await run_worker_until_idle(settings, redis_url)
    [pull] = fix_pulls(fake_github)
    assert SAFE in fake_github.commits[(REPO, pull.head_sha)]["app/db.py"]
    assert len(fake_model.fix_requests()) == 1  # the retry replayed the paid answer
    assert bot_comments(fake_github, ISSUE)[-1].startswith(f"Opened #{pull.number}: a checked fix")
