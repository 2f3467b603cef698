"""Review threads over GraphQL (list, resolve, outdated), the repository tree, and GitHub Enterprise URLs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.credentials import InstallationCredentials
from reviewbot.app.limits import RateLimits
from reviewbot.app.port import GitHubPort
from reviewbot.app.requester import graphql_url
from reviewbot.errors import GitHubError
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.server import ServedApp
from tests.helpers import BUG_LINE, HEAD_CALC, open_pull


def port_for(settings: Settings, api_url: str | None = None) -> GitHubPort:
    assert settings.github_app_id and settings.github_private_key
    url = api_url or settings.github_api_url
    tokens = InstallationTokens(settings.github_app_id, settings.github_private_key, url)
    return GitHubPort(InstallationCredentials(tokens, INSTALLATION), url,
                      limits=RateLimits(write_interval=settings.write_interval))


async def post_review(port: GitHubPort, sha: str) -> None:
    comments = [{"path": "app/calc.py", "line": BUG_LINE, "side": "RIGHT", "body": "divides by the count"},
                {"path": "app/calc.py", "line": 2, "side": "RIGHT", "body": "name the accumulator"}]
    await port.create_review(REPO, 7, {"commit_id": sha, "event": "COMMENT", "body": "review", "comments": comments})


async def test_threads_are_listed_resolved_and_become_outdated(settings: Settings,
                                                               fake_github: FakeGitHub) -> None:
    pull = open_pull(fake_github)
    port = port_for(settings)
    await post_review(port, pull["head"]["sha"])
    first, second = await port.review_threads(REPO, 7)
    assert (first["path"], first["line"], first["is_resolved"], first["is_outdated"]) == (
        "app/calc.py", BUG_LINE, False, False)
    assert first["comments"][0]["author"] == "reviewbot-test[bot]"
    assert first["comments"][0]["body"] == "divides by the count"

    assert await port.resolve_thread(first["id"]) is True
    # A push that rewrites the second comment's line makes its thread outdated.
    fake_github.update_head(REPO, 7, {"app/calc.py": HEAD_CALC.replace("    result = 0\n", "    acc = 0\n")})
    first, second = await port.review_threads(REPO, 7)
    assert first["is_resolved"] and not second["is_resolved"]
    assert second["is_outdated"] and second["line"] is None
    with pytest.raises(GitHubError) as missing:
        await port.resolve_thread("PRRT_nothing")
    assert missing.value.status == 404


async def test_the_tree_lists_every_file(settings: Settings, fake_github: FakeGitHub) -> None:
    pull = fake_github.add_pull(REPO, 5, base_files={"a.py": "", "pkg/b.py": "", "pkg/sub/c.py": ""},
                                head_files={"a.py": "x"})
    assert await port_for(settings).list_tree(REPO, pull["base"]["sha"]) == ["a.py", "pkg/b.py", "pkg/sub/c.py"]


@pytest.fixture
def enterprise(fake_github: FakeGitHub) -> Iterator[str]:
    """The fake as GitHub Enterprise Server: `https://HOST/api/v3` for REST, `/api/graphql` for GraphQL."""
    root = fake_github.base_url
    with ServedApp(fake_github.enterprise_app) as served:
        fake_github.base_url = f"{served.url}/api/v3"
        try:
            yield fake_github.base_url
        finally:
            fake_github.base_url = root


async def test_github_enterprise_server_urls(settings: Settings, fake_github: FakeGitHub, enterprise: str) -> None:
    assert graphql_url(enterprise).endswith("/api/graphql") and enterprise.endswith("/api/v3")
    assert graphql_url("https://api.github.com") == "https://api.github.com/graphql"
    pull = open_pull(fake_github)
    fake_github.add_pull(REPO, 9, base_files={}, head_files={f"m{i}.py": "x\n" for i in range(130)})
    port = port_for(settings, enterprise)
    assert (await port.get_pull(REPO, 7)).head_sha == pull["head"]["sha"]
    assert len(await port.list_files(REPO, 9)) == 130  # the next-page link keeps /api/v3
    await post_review(port, pull["head"]["sha"])
    assert len(await port.review_threads(REPO, 7)) == 2
    ghes = Settings.from_mapping({"GITHUB_API_URL": "https://ghe.example.com/api/v3/"})
    assert (ghes.github_api_url, ghes.github_url) == ("https://ghe.example.com/api/v3", "https://ghe.example.com")
