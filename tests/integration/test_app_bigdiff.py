"""Pull requests too large for GitHub's diff endpoint: the diff rebuilt from the files list and the blobs."""

from __future__ import annotations

from typing import Any

import pytest

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.bigdiff import load_diff
from reviewbot.app.port import GitHubPort
from reviewbot.review.diff.parse import ParsedDiff, parse_diff
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub

# GitHub omits the patch of a file whose diff is this long: the fallback must fetch both versions.
BIG_BASE = "".join(f"value_{i} = {i}\n" for i in range(2400)) + "END = True"  # no newline at the end
BIG_HEAD = "".join(f"value_{i} = {i if i % 3 else -i}\n" for i in range(2400) if i != 7) + "END = True\n"
HUGE = "".join(f"row {i:08d} ................................\n" for i in range(30_000))  # over 1 MB


@pytest.fixture
async def port(settings: Settings) -> GitHubPort:
    assert settings.github_app_id and settings.github_private_key
    tokens = InstallationTokens(settings.github_app_id, settings.github_private_key, settings.github_api_url)
    return GitHubPort(await tokens.get(INSTALLATION), settings.github_api_url)


def shape(diff: ParsedDiff) -> dict[str, Any]:
    return {f.path: (f.status, f.old_path, f.binary, [(h.old_start, h.new_start, h.lines) for h in f.hunks])
            for f in diff.files}


async def test_a_small_pr_uses_the_diff_endpoint(port: GitHubPort, fake_github: FakeGitHub) -> None:
    pr = fake_github.add_pull(REPO, 3, base_files={"a.py": "x = 1\n"}, head_files={"a.py": "x = 2\n"})
    text, unseen = await load_diff(port, REPO, 3, pr["base"]["sha"], pr["head"]["sha"])
    assert text == fake_github.pulls[(REPO, 3)].current.diff_text and unseen == []


async def test_an_oversized_pr_is_rebuilt_exactly_and_says_what_it_could_not_see(
        port: GitHubPort, fake_github: FakeGitHub) -> None:
    base = {f"src/m{i}.py": f"N = {i}\n" for i in range(310)} | {"big.py": BIG_BASE, "old_name.py": "A = 1\n",
                                                                   "gone.py": "B = 2\n"}
    head = {f"src/m{i}.py": f"N = {i + 1}\n" for i in range(310)} | {"big.py": BIG_HEAD, "new_name.py": "A = 1\n",
                                                                       "data/huge.txt": HUGE}
    pr = fake_github.add_pull(REPO, 4, base_files=base, head_files=head)
    text, unseen = await load_diff(port, REPO, 4, pr["base"]["sha"], pr["head"]["sha"])

    assert len([c for c in fake_github.requests if c.path == f"/repos/{REPO}/pulls/4/files"]) == 4  # 315 files
    rebuilt, served = shape(parse_diff(text)), shape(parse_diff(fake_github.pulls[(REPO, 4)].current.diff_text))
    # Identical to the diff GitHub would have served, except the file too large to fetch.
    assert rebuilt.pop("data/huge.txt") == ("added", None, True, [])
    served.pop("data/huge.txt")
    assert rebuilt == served and "big.py" in rebuilt and rebuilt["new_name.py"][0] == "renamed"
    # Over 1 MB, it is read raw (GitHub's JSON would hold no content) and is then too long to diff here.
    assert unseen == ["data/huge.txt (over 20,000 lines)"]
    fetched = {c.path for c in fake_github.requests if "/contents/" in c.path}
    assert fetched == {f"/repos/{REPO}/contents/big.py", f"/repos/{REPO}/contents/data/huge.txt"}


async def test_files_beyond_githubs_3000_file_listing_are_reported(port: GitHubPort, fake_github: FakeGitHub) -> None:
    head = {f"gen/f{i:04d}.txt": f"{i}\n" for i in range(3050)}
    pr = fake_github.add_pull(REPO, 6, base_files={}, head_files=head)
    text, unseen = await load_diff(port, REPO, 6, pr["base"]["sha"], pr["head"]["sha"])
    assert len(parse_diff(text).files) == 3000
    assert unseen == ["50 files after the first 3,000 (GitHub lists no more)"]
