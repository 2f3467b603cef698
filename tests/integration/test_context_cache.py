"""The repository cache (tarball through the port, safe extraction, LRU) and the layout/calibration stores."""

from __future__ import annotations

from pathlib import Path

from redis.asyncio import Redis

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.port import GitHubPort
from reviewbot.repos.cache import DirSnapshot, RepoCache
from reviewbot.review.prompt.layout import BlockSpec, Layout
from reviewbot.settings import Settings
from reviewbot.state.prompt_stores import FileStores, RedisStores
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub


async def test_the_base_tree_is_downloaded_once_and_reused(settings: Settings, fake_github: FakeGitHub,
                                                           tmp_path: Path) -> None:
    base = {"app/calc.py": "def total():\n    return 1\n", "README.md": "# widgets\n", "docs/a/b.md": "deep\n"}
    pull = fake_github.add_pull(REPO, 3, base_files=base, head_files={**base, "README.md": "# new\n"})
    assert settings.github_app_id and settings.github_private_key
    tokens = InstallationTokens(settings.github_app_id, settings.github_private_key, settings.github_api_url)
    port = GitHubPort(await tokens.get(INSTALLATION), settings.github_api_url)
    cache = RepoCache(tmp_path / "repos")
    sha = pull["base"]["sha"]

    async def download(dest: Path) -> None:
        await port.download_tarball(REPO, sha, dest, 10_000_000)

    tree = await cache.checkout(REPO, sha, download)
    again = await cache.checkout(REPO, sha, download)
    assert tree == again and tree.is_relative_to(tmp_path / "repos")
    snapshot = DirSnapshot(tree)
    assert list(snapshot.paths()) == sorted(base) and snapshot.read("app/calc.py") == base["app/calc.py"]
    archive_requests = [r for r in fake_github.requests if "/tarball/" in r.path or "/_codeload/" in r.path]
    assert [r.path.split("/")[1] for r in archive_requests] == ["repos", "_codeload"]  # one download, reused
    # The codeload redirect carries its own token: the installation token is not sent there.
    codeload = archive_requests[1]
    assert "authorization" not in codeload.headers and "token" in codeload.query
    port.close()


async def test_layouts_and_calibration_survive_in_redis_and_in_files(redis_url: str, tmp_path: Path) -> None:
    layout = Layout(context=(BlockSpec("a.py", ((1, 5),), "why"), BlockSpec("b.py", None, "because")),
                    diff_order=("c.py",), blocks=(("system", "abc", 10),))
    client = Redis.from_url(redis_url)
    redis = RedisStores(client)
    await redis.save_layout("pr:acme/widgets#1", layout)
    assert await redis.load_layout("pr:acme/widgets#1") == layout
    assert await redis.load_layout("pr:acme/widgets#2") is None
    first = await redis.observe("m", 3_000, 1_000)  # 3.0 chars per token
    assert first.chars_per_token == 3.0 and (await redis.calibration("m")).samples == 1
    await client.aclose()
    files = FileStores(tmp_path)
    files.save_layout("local:repo:feature", layout)
    assert files.load_layout("local:repo:feature") == layout
    for _ in range(20):
        files.observe("m", 2_500, 1_000)
    assert abs(files.calibration("m").chars_per_token - 2.5) < 0.01
    assert files.calibration("other").chars_per_token == 4.0
