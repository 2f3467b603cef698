"""Outcomes end to end, through the webhook and a real worker against the fake GitHub and a real Redis: a pull
request with a fixed, a dismissed and an ignored finding is merged; each outcome and the reactions on the App's
comments are counted once, in `reviewbot stats` and in /metrics."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from redis.asyncio import Redis

from reviewbot.cli.stats import stats_command
from reviewbot.outcomes.outcome_store import OutcomeStore
from reviewbot.outcomes.records import FindingRecord
from reviewbot.review.findings.fingerprints import fix_seal
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json
from tests.helpers import HEAD_CALC, bug_finding, deliver, open_pull, payload, run_worker_until_idle
from tests.integration.test_conversations import reply_event
from tests.observe_helpers import scrape, value

# Three findings on three lines the pull request adds: one gets fixed by a push, one dismissed, one ignored.
FIXED = bug_finding()  # line 5, `return result / len(items)`
DISMISSED = bug_finding(line=4, category="performance", severity="minor", title="Sum in a Python loop",
                        suggestion=None)
IGNORED = bug_finding(line=2, category="maintainability", severity="minor", title="Name the accumulator",
                      suggestion=None)


async def stored(redis_url: str) -> dict[str, FindingRecord]:
    client = Redis.from_url(redis_url)
    try:
        return {r.category: r for r in await OutcomeStore(client).of_pull(INSTALLATION, REPO, 7)}
    finally:
        await client.aclose()


def root_of(github: FakeGitHub, title: str) -> dict[str, Any]:
    return next(c for c in github.review_comments[(REPO, 7)] if "in_reply_to_id" not in c and title in c["body"])


def stats(env: dict[str, str], cwd: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "reviewbot", "stats", *args, "--format", "json"], cwd=cwd,
                          env=os.environ | env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


async def test_a_fixed_a_dismissed_and_an_ignored_finding_are_counted_when_the_pull_request_merges(
        web: httpx.Client, settings: Settings, redis_url: str, env: dict[str, str], fake_github: FakeGitHub,
        fake_model: FakeModel, tmp_path: Path) -> None:
    fake_model.default = answering(findings_json([FIXED, DISMISSED, IGNORED]))
    pull = open_pull(fake_github)
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    posted = await stored(redis_url)
    assert sorted(posted) == ["bug", "maintainability", "performance"]
    assert {r.outcome for r in posted.values()} == {""}  # undecided while the pull request is open
    assert (posted["bug"].severity, posted["bug"].path, posted["bug"].line, posted["bug"].model) == (
        "major", "app/calc.py", 5, settings.model)

    # Someone with write access dismisses the performance finding in its thread.
    event = reply_event(fake_github, pull, root_of(fake_github, "Sum in a Python loop"),
                        "@reviewbot-test dismiss: the list has three items", login="maintainer-mo")
    assert deliver(web, "pull_request_review_comment", event).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    dismissed = (await stored(redis_url))["performance"]
    assert (dismissed.outcome, dismissed.by, dismissed.scope) == ("dismissed", "maintainer-mo", "repository")

    # A push changes the division's line; the next review no longer reports it and resolves its thread as fixed.
    fake_model.default = answering(findings_json([IGNORED]))
    pushed = fake_github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC.replace("result / len(items)", "result")})
    assert deliver(web, "pull_request", payload("pull_request.synchronize", pushed)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    assert (await stored(redis_url))["bug"].outcome == "fixed"

    # People react to the App's comments; then the pull request is merged with the nit left open.
    fake_github.react(root_of(fake_github, "now divides")["id"], "+1", "octocat")
    fake_github.react(root_of(fake_github, "now divides")["id"], "+1", "maintainer-mo")
    fake_github.react(root_of(fake_github, "Name the accumulator")["id"], "-1", "octocat")
    fake_github.react(root_of(fake_github, "Name the accumulator")["id"], "-1", "maintainer-mo")
    fake_github.permissions["maintainer-mo"] = "maintain"  # octocat has no write access here
    fake_github.set_state(REPO, 7, "closed")
    closed = payload("pull_request.closed", pushed)
    closed["pull_request"] |= {"merged": True, "state": "closed"}
    assert deliver(web, "pull_request", closed).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    final = await stored(redis_url)
    assert {k: r.outcome for k, r in final.items()} == {
        "bug": "fixed", "performance": "dismissed", "maintainability": "open_at_merge"}
    assert (final["bug"].thumbs_up, final["maintainability"].thumbs_down) == (2, 2)
    assert final["maintainability"].disliked_by == ("maintainer-mo",)  # what rule proposals may act on

    # The same `closed` again (a redelivery under a new id) decides the same and counts nothing twice.
    assert deliver(web, "pull_request", closed).status_code in (200, 202)
    await run_worker_until_idle(settings, redis_url)
    assert await stored(redis_url) == final

    shown = stats(env, tmp_path, "--repo", REPO, "--since", "1d")
    total = shown["total"]
    assert (total["posted"], total["fixed"], total["dismissed"], total["open_at_merge"], total["pending"]) == (
        3, 1, 1, 1, 0)
    assert (total["thumbs_up"], total["thumbs_down"], total["resolution_rate"]) == (2, 2, 0.3333)
    assert {r["key"]: r["fixed"] for r in shown["by"]["category"]} == {
        "bug": 1, "performance": 0, "maintainability": 0}
    assert stats(env, tmp_path, "--repo", "acme/other")["total"]["posted"] == 0

    samples = scrape(web)
    for outcome, category, severity in (("fixed", "bug", "major"), ("dismissed", "performance", "minor"),
                                        ("open_at_merge", "maintainability", "minor")):
        assert value(samples, "reviewbot_finding_outcomes_total", outcome=outcome, category=category,
                     severity=severity) == 1
        assert value(samples, "reviewbot_findings_posted_total", category=category, severity=severity) == 1
    assert value(samples, "reviewbot_finding_reactions_total", reaction="+1", category="bug", severity="major") == 2
    assert value(samples, "reviewbot_finding_reactions_total", reaction="-1", category="maintainability",
                 severity="minor") == 2


async def test_a_thread_a_person_resolved_and_a_merged_fix_commit_are_told_apart(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    fake_model.default = answering(findings_json([FIXED, IGNORED]))
    pull = open_pull(fake_github)
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    posted = await stored(redis_url)
    # The team resolves the nit's thread by hand; the division is fixed by the App's fix commit, which landed.
    root = root_of(fake_github, "Name the accumulator")
    fake_github.resolve_as(f"PRRT_fake{root['id']}", "maintainer-mo")
    fp = posted["bug"].fingerprint
    fake_github.commit_messages[(REPO, pull["head"]["sha"])] = (
        f"Return the sum\n\nThe division was a bug.\n\nReviewbot-Fix: {fp}\n"
        f"Reviewbot-Seal: {fix_seal([fp], REPO, settings.marker_key())}")
    fake_github.set_state(REPO, 7, "closed")
    closed = payload("pull_request.closed", pull)
    closed["pull_request"] |= {"merged": True, "state": "closed"}
    assert deliver(web, "pull_request", closed).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    final = await stored(redis_url)
    assert (final["bug"].outcome, final["bug"].by) == ("fixed", "fix commit")
    assert (final["maintainability"].outcome, final["maintainability"].by) == ("resolved", "maintainer-mo")


async def test_stats_as_a_table_says_the_rates_and_an_empty_window_says_so(redis_url: str) -> None:
    now = time.time()
    client = Redis.from_url(redis_url)
    try:
        await OutcomeStore(client).posted([
            FindingRecord(installation=INSTALLATION, repo=REPO, pr=n, fingerprint=f"{n:016x}", category="security",
                          severity="major", path="app/db.py", line=n, cwe="CWE-89", model="kimi", posted_at=now,
                          outcome=outcome) for n, outcome in enumerate(["fixed", "dismissed", "fixed", ""])])
    finally:
        await client.aclose()
    out = io.StringIO()
    assert await asyncio.to_thread(stats_command, redis_url, REPO, now - 60, "table", out) == 0
    text = out.getvalue()
    assert f"Findings posted in {REPO} since" in text and ": 4 (1 on open pull requests)" in text
    assert "Resolution rate 50% (fixed ÷ posted), dismissal rate 25%" in text
    assert "by cwe" in text and "CWE-89" in text
    empty = io.StringIO()
    assert await asyncio.to_thread(stats_command, redis_url, "acme/other", now - 60, "table", empty) == 0
    assert empty.getvalue().startswith("No findings posted in acme/other since")


async def test_github_failing_at_close_leaves_the_findings_undecided_until_the_job_runs_again(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    fake_model.default = answering(findings_json([IGNORED]))
    pull = open_pull(fake_github)
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    # Every in-process retry of the reactions request gets a 502: the job is deferred, then runs again.
    fake_github.inject("GET", rf"/repos/{REPO}/pulls/comments/\d+/reactions", 502, {"message": "Bad gateway"},
                       headers={"Retry-After": "1"}, times=3)
    fake_github.set_state(REPO, 7, "closed")
    assert deliver(web, "pull_request", payload("pull_request.closed", pull)).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)
    assert (await stored(redis_url))["maintainability"].outcome == "open_at_close"
    asked = [c for c in fake_github.requests if c.path.endswith("/reactions")]
    assert len(asked) == 4  # three refused (one job try), then the job's second try
