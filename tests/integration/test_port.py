"""The GitHub port against the fake GitHub: reads, pagination, writes and error translation."""

from __future__ import annotations

import httpx
import pytest

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.port import GitHubPort
from reviewbot.errors import GitHubError, GitHubRetryable
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.helpers import BASE_CALC, open_pull


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
    # `permission` says write for maintain: the collaborator's flags tell them apart (a custom role too).
    fake_github.custom_roles["release-manager"] = "maintain"
    fake_github.permissions.update({"mia": "maintain", "rel": "release-manager", "wes": "write", "tia": "triage"})
    assert [await port.permission(REPO, u) for u in ("mia", "rel", "wes", "tia")] == \
        ["maintain", "maintain", "write", "read"]


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


async def test_files_of_one_to_a_hundred_megabytes_are_read_raw_and_larger_ones_are_skipped(
        port: GitHubPort, fake_github: FakeGitHub) -> None:
    # Over 1 MB GitHub's default JSON answer has `"content": ""` (encoding "none"): only the raw media type
    # serves such a file. Over 100 MB nothing does (403 too_large); the fake's limit is lowered to 3 MB here.
    big = "".join(f"row {i}: {'x' * 90}\n" for i in range(15_000))  # about 1.5 MB
    huge = big * 3  # about 4.5 MB
    manifest = '{"name": "widgets", "version": "1.0.0"}\n'  # raw JSON stays text, never parsed
    fake_github.max_contents_bytes = 3 * 1024 * 1024
    pull = fake_github.add_pull(REPO, 9, base_files={}, head_files={"big.txt": big, "huge.txt": huge,
                                                                    "package.json": manifest, "{x}.js": "{ a }\n"})
    head = pull["head"]["sha"]
    assert await port.get_file(REPO, "big.txt", head) == big
    assert await port.get_file(REPO, "package.json", head) == manifest
    assert await port.get_file(REPO, "{x}.js", head) == "{ a }\n"
    assert await port.get_file(REPO, "huge.txt", head) is None
    assert [c.headers.get("accept") for c in fake_github.requests if "/contents/" in c.path] == [
        "application/vnd.github.raw+json"] * 4


async def test_an_open_check_run_is_found_beyond_the_first_page(port: GitHubPort, fake_github: FakeGitHub,
                                                                 settings: Settings) -> None:
    pull = open_pull(fake_github)
    head = pull["head"]["sha"]
    wanted = await port.create_check_run(REPO, {"name": "reviewbot", "head_sha": head, "external_id": "7"})
    assert settings.github_app_id and settings.github_private_key
    token = await InstallationTokens(settings.github_app_id, settings.github_private_key,
                                     settings.github_api_url).get(INSTALLATION)
    # The newer runs are set up directly, since the port spaces its writes a second apart.
    with httpx.Client(base_url=fake_github.base_url, headers={"Authorization": f"token {token}"}) as setup:
        for i in range(120):  # newer runs of the same name (other pull requests at this commit), all finished
            created = setup.post(f"/repos/{REPO}/check-runs", json={
                "name": "reviewbot", "head_sha": head, "status": "completed", "conclusion": "success",
                "external_id": str(100 + i)})
            assert created.status_code == 201
    assert await port.open_check_run(REPO, head, "reviewbot", "7") == wanted
    assert await port.open_check_run(REPO, head, "reviewbot", "8") is None
