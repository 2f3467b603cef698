"""The review job through a real worker against a GitHub that is large, limited and flaky."""

from __future__ import annotations

import httpx

from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import HEAD_CALC, bug_finding, deliver, open_pull, payload, run_worker_until_idle

SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}


async def test_a_2500_file_pr_is_reviewed_through_the_files_endpoint(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    base = {f"pkg/mod{i}.py": f"VALUE = {i}\n" for i in range(2500)}
    head = {path: text.replace("VALUE", "LIMIT") for path, text in base.items()}
    long_base = "".join(f"step_{i}()\n" for i in range(2000))  # its patch is omitted: rebuilt from blobs
    base["pkg/long.py"], head["pkg/long.py"] = long_base, long_base.replace("()", "(retry=True)")
    pull = fake_github.add_pull(REPO, 12, base_files=base, head_files=head, title="Rename VALUE")
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)

    [review] = fake_github.reviews[(REPO, 12)]
    assert review["commit_id"] == pull["head"]["sha"]
    pages = [c for c in fake_github.requests if c.path == f"/repos/{REPO}/pulls/12/files"]
    assert len(pages) == 26  # 2,501 files, 100 per page
    [prompt] = fake_model.requests
    user = prompt.json["messages"][-1]["content"]
    # The rebuilt diff went through the context engine: what fits the budget is shown, the rest is named.
    assert "+LIMIT = 0" in user or "LIMIT = 0" in user
    assert "pkg/long.py: over the prompt's token budget" in user


async def test_a_secondary_limit_and_a_burst_of_502s_still_post_one_review(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.script_reply(findings_json([bug_finding()]))
    pull = open_pull(fake_github)
    fake_github.inject("GET", rf"/repos/{REPO}/pulls/7", 502, "Bad Gateway", times=2)
    fake_github.inject("POST", rf"/repos/{REPO}/pulls/7/reviews", 403, SECONDARY, {"retry-after": "1"})
    fake_github.inject("POST", rf"/repos/{REPO}/pulls/7/reviews", 502, "Bad Gateway", after=True)
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)

    [review] = fake_github.reviews[(REPO, 7)]
    assert len(review["comments"]) == 1
    [check] = fake_github.check_runs.values()
    assert check["status"] == "completed" and len(fake_model.review_requests()) == 1


async def test_workers_share_tokens_through_redis_and_refresh_a_revoked_one(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull = open_pull(fake_github)
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    fake_github.expire_tokens()
    pushed = fake_github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC + "# tweak\n"})
    assert deliver(web, "pull_request", payload("pull_request.synchronize", pushed)).status_code == 202
    await run_worker_until_idle(settings, redis_url)  # a new worker: its token comes from Redis, then a 401

    assert len(fake_github.reviews[(REPO, 7)]) == 2
    issued = fake_github.timed_requests("POST", rf"/app/installations/{INSTALLATION}/access_tokens")
    assert len(issued) == 2
