"""The port's linked-issue reads against the fake GitHub: issues, a pull request's commits, closing references."""

from __future__ import annotations

from reviewbot.app.port import GitHubPort
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.helpers import open_pull


async def test_issues_are_read_only_where_the_installation_can_read(port: GitHubPort,
                                                                   fake_github: FakeGitHub) -> None:
    open_pull(fake_github)
    fake_github.add_issue(REPO, 12, "Retry limit", "Make it configurable.", state="closed")
    fake_github.add_issue("someone-else/private", 4, "Hidden", "secret plans")
    issue = await port.get_issue(REPO, 12)
    assert (issue.title, issue.body, issue.state, issue.is_pull, issue.status) == (
        "Retry limit", "Make it configurable.", "closed", False, 200)
    assert (await port.get_issue(REPO, 7)).is_pull  # GitHub's issues include pull requests
    assert (await port.get_issue(REPO, 404)).status == 404
    outside = await port.get_issue("someone-else/private", 4)
    assert outside.status == 404 and outside.body == ""  # GitHub hides a private repository it may not see
    fake_github.set_visibility("someone-else/private", "public")
    assert (await port.get_issue("someone-else/private", 4)).body == "secret plans"  # any token reads public ones


async def test_repository_visibility_of_the_pull_request_and_of_other_repositories(
        port: GitHubPort, fake_github: FakeGitHub) -> None:
    open_pull(fake_github)
    fake_github.add_issue("acme/open-source", 1)
    fake_github.add_issue("someone-else/private", 4)
    assert (await port.get_pull(REPO, 7)).visibility == "private"  # the fake's default, as GitHub's
    fake_github.set_visibility(REPO, "public")
    fake_github.set_visibility("acme/open-source", "public")
    assert (await port.get_pull(REPO, 7)).visibility == "public"
    assert await port.repo_visibility("acme/open-source") == "public"
    fake_github.set_visibility(REPO, "internal")
    assert (await port.get_pull(REPO, 7)).visibility == await port.repo_visibility(REPO) == "internal"
    # Outside the installation a private repository and a missing one answer the same 404: both not public.
    assert await port.repo_visibility("someone-else/private") == await port.repo_visibility("nobody/none") == \
        "unknown"
    assert not fake_github.take_violations()


async def test_commit_messages_and_closing_references(port: GitHubPort, fake_github: FakeGitHub) -> None:
    pull = open_pull(fake_github)
    fake_github.set_commit_message(REPO, pull["head"]["sha"], "Fix totals\n\nFixes #12")
    pushed = fake_github.update_head(REPO, 7, {"app/calc.py": "def total():\n    return 0\n"})
    fake_github.set_commit_message(REPO, pushed["head"]["sha"], "Simplify")
    assert await port.pull_commit_messages(REPO, 7) == ["Fix totals\n\nFixes #12", "Simplify"]
    fake_github.link_closing_issue(REPO, 7, REPO, 12)
    fake_github.link_closing_issue(REPO, 7, "acme/tracker", 3)
    assert await port.closing_issues(REPO, 7) == [(REPO, 12), ("acme/tracker", 3)]
    # GitHub answers an error (an unknown pull request, an old Enterprise server): no references, no failure.
    assert await port.closing_issues(REPO, 999) == []
    assert not fake_github.take_violations()
