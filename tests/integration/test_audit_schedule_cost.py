"""What the audit schedule's scan costs in GitHub requests: an idle installation is not read again every ten
minutes; a push to a repository (or to the organisation's `.github` defaults) is noticed at the next scan."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from arq.connections import create_pool

from reviewbot.jobs.audit.schedule import EVERY_MINUTES, audit_schedules
from reviewbot.jobs.deps import build_deps
from reviewbot.queue.worker import redis_settings
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub

OWNER = REPO.split("/")[0]
DAILY = "audit:\n  schedule: daily\n"
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC).timestamp()


async def scan(env: dict[str, str], redis_url: str, *moments: float) -> list[dict[str, Any]]:
    """Runs of the cron job at `moments`, by one worker (its installation tokens cached between runs)."""
    settings = Settings.from_mapping(env)
    client = await create_pool(redis_settings(redis_url))
    deps = build_deps(settings, client)
    try:
        return [await audit_schedules({"deps": deps, "redis": client, "settings": settings}, now=moment)
                for moment in moments]
    finally:
        await deps.aclose()
        await client.aclose()


def installed(github: FakeGitHub, count: int) -> list[str]:
    """`count` repositories without a schedule, and the organisation's `.github` without defaults."""
    repos = [f"{OWNER}/repo-{i:04d}" for i in range(count)]
    for repo in [*repos, f"{OWNER}/.github"]:
        github.set_branch(repo, "main", {"README.md": "# demo\n"})
    github.add_installation(INSTALLATION, [*repos, f"{OWNER}/.github"])
    return repos


async def idle_hour(env: dict[str, str], redis_url: str, github: FakeGitHub, first: float) -> list[Any]:
    """Six scans, ten minutes apart, from `first`: the requests they made."""
    before = len(github.requests)
    scans = await scan(env, redis_url, *(first + k * EVERY_MINUTES * 60 for k in range(60 // EVERY_MINUTES)))
    assert [s["started"] for s in scans] == [[]] * len(scans)
    return github.requests[before:]


async def test_an_idle_installation_costs_less_than_one_request_per_repository_per_hour(
        env: dict[str, str], redis_url: str, fake_github: FakeGitHub) -> None:
    repos = installed(fake_github, 120)
    await scan(env, redis_url, START)  # the first scan reads each configuration once
    # each repository's file once (the `.github` repository's too) and the organisation's defaults once
    assert len([c for c in fake_github.requests if "/contents/" in c.path]) == len(repos) + 2

    spent = await idle_hour(env, redis_url, fake_github, START + EVERY_MINUTES * 60)
    print(f"\n{len(spent)} GitHub requests in an idle hour for {len(repos) + 1} repositories")
    assert not [c for c in spent if "/contents/" in c.path]  # no configuration read again
    # Left: per scan, the App's installations and the installation's repositories (100 a page), and a token.
    assert len(spent) <= (len(repos) + 1) // 4

    # A push that schedules audits is noticed at the next scan, which reads that one configuration (and the
    # organisation's defaults once).
    fake_github.set_branch(repos[7], "main", {"README.md": "# demo\n", ".github/reviewbot.yml": DAILY})
    before = len(fake_github.requests)
    [found] = await scan(env, redis_url, START + 3600 + 60)
    assert found["started"] == [repos[7]]
    reads = [c.path for c in fake_github.requests[before:] if "/contents/" in c.path]
    assert sorted(reads) == sorted([f"/repos/{repos[7]}/contents/.github/reviewbot.yml",
                                    f"/repos/{OWNER}/.github/contents/.github/reviewbot.yml"])


async def test_new_organisation_defaults_are_read_again_for_every_repository(
        env: dict[str, str], redis_url: str, fake_github: FakeGitHub) -> None:
    repos = installed(fake_github, 3)
    await scan(env, redis_url, START)
    fake_github.set_branch(f"{OWNER}/.github", "main", {".github/reviewbot.yml": DAILY})
    before = len(fake_github.requests)
    [found] = await scan(env, redis_url, START + 600)
    assert sorted(found["started"]) == sorted([*repos, f"{OWNER}/.github"])
    org_reads = [c for c in fake_github.requests[before:] if c.path.startswith(f"/repos/{OWNER}/.github/contents")]
    assert len(org_reads) <= 2  # once for the defaults (and once as the `.github` repository's own file)
