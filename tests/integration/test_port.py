"""The GitHub port against the fake GitHub: reads, pagination, writes and error translation."""

from __future__ import annotations

import pytest

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.port import GitHubPort
from reviewbot.app.requester import RetryPolicy
from reviewbot.errors import GitHubError, GitHubRetryable
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.helpers import BASE_CALC, open_pull


@pytest.fixture
async def port(settings: Settings) -> GitHubPort:
    assert settings.github_app_id and settings.github_private_key
    tokens = InstallationTokens(settings.github_app_id, settings.github_private_key, settings.github_api_url)
    return GitHubPort(await tokens.get(INSTALLATION), settings.github_api_url,
                      retry=RetryPolicy(first_s=0.05, max_s=0.1))


async def test_reads_a_pull_request_its_diff_and_base_files(port: GitHubPort, fake_github: FakeGitHub) -> None:
    pull = open_pull(fake_github)
    info = await port.get_pull(REPO, 7)
    assert (info.head_sha, info.base_sha, info.title) == (pull["head"]["sha"], pull["base"]["sha"], "Rewrite total")
    assert (await port.get_diff(REPO, 7)).startswith("diff --git a/app/calc.py b/app/calc.py")
    assert await port.get_file(REPO, "app/calc.py", info.base_sha) == BASE_CALC
    assert await port.get_file(REPO, "missing.py", info.base_sha) is None


async def test_lists_follow_pagination(port: GitHubPort, fake_github: FakeGitHub) -> None:
    files = {f"pkg/m{i}.py": f"x = {i}\n" for i in range(230)}
    fake_github.add_pull(REPO, 9, base_files={}, head_files=files)
    listed = await port.list_files(REPO, 9)
    assert len(listed) == 230 and {f["filename"] for f in listed} == set(files)


async def test_comments_reactions_and_permissions(port: GitHubPort, fake_github: FakeGitHub) -> None:
    open_pull(fake_github)
    comment_id = await port.create_issue_comment(REPO, 7, "hello")
    await port.add_reaction(REPO, comment_id, "eyes")
    assert [c["body"] for c in await port.list_issue_comments(REPO, 7)] == ["hello"]
    assert fake_github.reactions[comment_id][0]["content"] == "eyes"
    fake_github.permissions["maintainer-mo"] = "admin"
    assert await port.permission(REPO, "maintainer-mo") == "admin"


async def test_errors_are_translated_to_retryable_and_permanent(port: GitHubPort, fake_github: FakeGitHub) -> None:
    open_pull(fake_github)
    fake_github.inject("GET", f"/repos/{REPO}/pulls/7", 502, {"message": "Server Error"}, times=3)
    with pytest.raises(GitHubRetryable):  # the port's own retries are bounded
        await port.get_pull(REPO, 7)
    fake_github.inject("GET", f"/repos/{REPO}/pulls/7", 403,
                       {"message": "You have exceeded a secondary rate limit."}, {"retry-after": "42"})
    with pytest.raises(GitHubRetryable) as limited:
        await port.get_pull(REPO, 7)
    assert limited.value.retry_after == 42
    with pytest.raises(GitHubError) as missing:
        await port.get_pull(REPO, 404)
    assert missing.value.status == 404
