"""Rules learnt in the open, end to end (webhooks, a real worker, the fake GitHub and model, a real Redis): the same
finding dismissed three times in one folder by two people becomes one pull request to `.github/reviewbot.yml` with
the evidence; the trigger repeated opens no second one; once closed it is not made again; with `learn` off, nothing."""

from __future__ import annotations

import time
from typing import Any

import httpx
import yaml
from redis.asyncio import Redis

from reviewbot.learn.proposal import BRANCH_PREFIX
from reviewbot.outcomes.outcome_store import OutcomeStore
from reviewbot.outcomes.records import FindingRecord
from reviewbot.review.config import CONFIG_PATH, parse_config
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.github_state import PullRequest
from tests.fakes.model import FakeModel, answering, findings_json
from tests.gfm import assert_safe_for_github
from tests.helpers import bug_finding, deliver, payload, run_worker_until_idle
from tests.integration.test_conversations import reply_event

TEAM_FILE = "# How reviewbot reviews us\nlearn: propose\nmax_comments: 8  # enough\n"
TITLE = "Loop bound read from a global"
CODE = "LIMIT = 3\n\n\ndef scan(rows):\n    for i in range(LIMIT):\n        print(rows[i])\n"


def start(github: FakeGitHub, config: str) -> None:
    """The default branch holds the team's configuration; the App may write contents (a rule proposal needs it)."""
    github.set_branch(REPO, "main", {CONFIG_PATH: config})
    github.installations[INSTALLATION].permissions["contents"] = "write"


async def dismissed_on(web: httpx.Client, settings: Settings, redis_url: str, github: FakeGitHub, model: FakeModel,
                       number: int, path: str, login: str) -> None:
    """Pull request `number` adds `path`; its review posts the finding, and `login` dismisses it in the thread."""
    model.default = answering(findings_json([bug_finding(path=path, line=5, category="maintainability",
                                                         severity="minor", title=TITLE, suggestion=None)]))
    pull = github.add_pull(REPO, number, base_files={CONFIG_PATH: TEAM_FILE}, head_files={path: CODE},
                           title=f"Add {path}", head_ref=f"feature-{number}")
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    [root] = github.review_comments[(REPO, number)]
    event = reply_event(github, pull, root, "@reviewbot-test won't fix: the bound is fixed by design", login=login)
    assert deliver(web, "pull_request_review_comment", event).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)


def proposals(github: FakeGitHub) -> list[PullRequest]:
    return [pr for pr in github.pulls.values() if pr.head_ref.startswith(BRANCH_PREFIX)]


async def forget_proposals(redis_url: str) -> None:
    """Redis loses what it remembered of proposals (a flushed or replaced Redis): GitHub still knows."""
    client = Redis.from_url(redis_url)
    try:
        async for key in client.scan_iter(match="reviewbot:proposal:*"):
            await client.delete(key)
    finally:
        await client.aclose()


async def test_a_rule_dismissed_three_times_by_two_people_is_proposed_once_and_never_again_once_closed(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    start(fake_github, TEAM_FILE)
    await dismissed_on(web, settings, redis_url, fake_github, fake_model, 7, "jobs/a.py", "maintainer-mo")
    await dismissed_on(web, settings, redis_url, fake_github, fake_model, 8, "jobs/b.py", "lead-lu")
    assert proposals(fake_github) == []  # twice is not yet a pattern
    await dismissed_on(web, settings, redis_url, fake_github, fake_model, 9, "jobs/c.py", "maintainer-mo")

    [proposal] = proposals(fake_github)  # the App's pull request, numbered after the others (#10)
    assert (proposal.number, proposal.author, proposal.base_ref, proposal.state) == (
        10, fake_github.bot_login, "main", "open")
    text = fake_github.commits[(REPO, proposal.head_sha)][CONFIG_PATH]
    assert text.startswith(TEAM_FILE)  # the team's file, comments and all, with the rule added below
    config = parse_config(text)
    assert config.errors == [] and config.config.max_comments == 8
    [rule] = config.config.learnings
    assert (rule.rule, rule.path) == ("loop bound read from a global", "jobs/*")
    body = proposal.body
    for evidence in ("#7", "#8", "#9", "`jobs/a.py`", "`maintainer-mo`", "`lead-lu`", f"`{TITLE}`"):
        assert evidence in body
    assert "@maintainer-mo" not in body and "@lead-lu" not in body  # named, never pinged
    assert_safe_for_github(body, "github.com", REPO)
    assert [c.path for c in proposal.current.files] == [CONFIG_PATH]

    # GitHub tells the App about its own pull request: not reviewed (it changes nothing but the configuration).
    asked = len(fake_model.requests)
    opened = payload("pull_request.opened", fake_github.set_state(REPO, proposal.number, "open"))
    assert deliver(web, "pull_request", opened).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    assert fake_github.reviews[(REPO, proposal.number)] == [] and len(fake_model.requests) == asked

    # The same pattern again (a fourth dismissal), and again after Redis forgot: still one proposal.
    await dismissed_on(web, settings, redis_url, fake_github, fake_model, 20, "jobs/d.py", "lead-lu")
    await forget_proposals(redis_url)
    await dismissed_on(web, settings, redis_url, fake_github, fake_model, 21, "jobs/e.py", "lead-lu")
    assert len(proposals(fake_github)) == 1

    # The team closes it: not proposed again, whatever Redis remembers.
    fake_github.set_state(REPO, proposal.number, "closed")
    await forget_proposals(redis_url)
    await dismissed_on(web, settings, redis_url, fake_github, fake_model, 22, "jobs/f.py", "maintainer-mo")
    assert len(proposals(fake_github)) == 1 and len(fake_github.git_commits) == 1


async def test_with_learn_off_nothing_is_proposed_and_nothing_written(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    start(fake_github, "max_comments: 8\n")
    for number, path, login in ((7, "jobs/a.py", "maintainer-mo"), (8, "jobs/b.py", "lead-lu"),
                                (9, "jobs/c.py", "maintainer-mo")):
        await dismissed_on(web, settings, redis_url, fake_github, fake_model, number, path, login)
    assert proposals(fake_github) == [] and fake_github.git_commits == []
    assert not any(r.method == "POST" and r.path.endswith("/pulls") for r in fake_github.requests)


def style_record(n: int) -> FindingRecord:
    return FindingRecord(installation=INSTALLATION, repo=REPO, pr=100 + n, fingerprint=f"{n:016x}", category="style",
                         severity="minor", path=f"web/f{n}.py", line=3, posted_at=time.time() - 86_400 + n,
                         outcome="fixed" if n < 3 else "open_at_merge")


async def test_a_category_people_rarely_fix_gets_a_stricter_threshold_after_a_pull_request_closes(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    start(fake_github, TEAM_FILE)
    fake_github.set_visibility(REPO, "public")
    client = Redis.from_url(redis_url)
    try:  # 40 style findings of earlier pull requests, 3 fixed (their outcomes counted when they closed)
        await OutcomeStore(client).posted([style_record(n) for n in range(40)])
    finally:
        await client.aclose()
    fake_model.default = answering(findings_json([bug_finding(path="web/x.py", line=5, category="style",
                                                              severity="minor", title="Name it", suggestion=None)]))
    pull = fake_github.add_pull(REPO, 7, base_files={CONFIG_PATH: TEAM_FILE}, head_files={"web/x.py": CODE})
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    fake_github.set_state(REPO, 7, "closed")
    closed: dict[str, Any] = payload("pull_request.closed", pull)
    closed["pull_request"] |= {"merged": True, "state": "closed"}
    assert deliver(web, "pull_request", closed).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)

    [proposal] = proposals(fake_github)
    text = fake_github.commits[(REPO, proposal.head_sha)][CONFIG_PATH]
    assert yaml.safe_load(text)["severity_thresholds"] == {"style": "major"}
    assert parse_config(text).config.threshold_for("style") == "major"
    assert "3 of 41 style findings were fixed" in proposal.body
    assert "latest 20 of the 38 findings not fixed" in proposal.body
    assert "| #7 | `web/x.py` |" in proposal.body and "| #139 |" in proposal.body
    assert_safe_for_github(proposal.body, "github.com", REPO)



async def test_without_contents_write_nothing_is_written_and_the_proposal_comes_once_it_is_granted(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    start(fake_github, TEAM_FILE)
    fake_github.installations[INSTALLATION].permissions["contents"] = "read"  # an App created before proposals
    for number, path, login in ((7, "jobs/a.py", "maintainer-mo"), (8, "jobs/b.py", "lead-lu"),
                                (9, "jobs/c.py", "maintainer-mo")):
        await dismissed_on(web, settings, redis_url, fake_github, fake_model, number, path, login)
    assert proposals(fake_github) == [] and fake_github.git_commits == []

    fake_github.installations[INSTALLATION].permissions["contents"] = "write"  # the owner accepted it
    await dismissed_on(web, settings, redis_url, fake_github, fake_model, 20, "jobs/d.py", "lead-lu")
    [proposal] = proposals(fake_github)
    assert "`jobs/d.py`" in proposal.body and len(fake_github.git_commits) == 1
