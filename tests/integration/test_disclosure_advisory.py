"""A public repository's audit where code scanning refuses the upload, through the port against the fake GitHub:
its findings go to one private draft repository security advisory (created once, then edited), or, without the
`repository_advisories` permission, nowhere anyone else reads; never to a public tracking issue."""

from __future__ import annotations

import pytest

from reviewbot.app.port import GitHubPort
from reviewbot.audit.findings import AuditFinding
from reviewbot.audit.publish import Published, publish_audit
from reviewbot.audit.tracking import read_tracking
from reviewbot.errors import AdvisoriesUnavailable
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.sarif_shapes import CATEGORY, COMMIT, sql_injection, weak_hash

KEY = b"k" * 32


def without_code_scanning(fake_github: FakeGitHub, advisories: str | None) -> None:
    """A public repository whose installation has not accepted `security_events` (and may have advisories)."""
    fake_github.make_public(REPO)
    permissions = fake_github.installations[INSTALLATION].permissions
    permissions.pop("security_events", None)
    if advisories:
        permissions["repository_advisories"] = advisories


async def _publish(port: GitHubPort, fake_github: FakeGitHub, findings: list[AuditFinding], *,
                   branch: bool = True) -> Published:
    return await publish_audit(port, REPO, findings, category=CATEGORY, commit_sha=COMMIT, ref="refs/heads/main",
                               bot_login=fake_github.bot_login, key=KEY, tracking=branch, public=True)


async def test_the_port_reads_a_repositorys_visibility(port: GitHubPort, fake_github: FakeGitHub) -> None:
    assert (await port.repository(REPO)).visibility == "private"
    fake_github.make_public(REPO)
    info = await port.repository(REPO)
    assert (info.visibility, info.default_branch) == ("public", "main")


async def test_a_refused_upload_on_a_public_repository_goes_to_one_draft_advisory_edited_by_later_audits(
        port: GitHubPort, fake_github: FakeGitHub) -> None:
    without_code_scanning(fake_github, "write")
    first = await _publish(port, fake_github, [sql_injection(), weak_hash()])
    assert (first.where, first.issue_number, first.new) == ("advisory", None, 2)
    [advisory] = fake_github.repo_advisories(REPO)
    assert advisory["ghsa_id"] == first.advisory_id and advisory["state"] == "draft"
    assert advisory["severity"] == "critical" and advisory["cwe_ids"] == ["CWE-89", "CWE-916"]
    assert advisory["vulnerabilities"][0]["package"] == {"ecosystem": "other", "name": REPO.split("/")[1]}
    assert sql_injection().title in advisory["description"]  # the advisory is private: it may describe them
    assert "this one draft advisory up to date" in advisory["description"]
    assert read_tracking(advisory["description"], KEY) == {CATEGORY: sorted(
        {sql_injection().fingerprint, weak_hash().fingerprint})}
    assert not fake_github.issues  # never a public issue

    second = await _publish(port, fake_github, [sql_injection()])
    assert (second.where, second.advisory_id, second.new) == ("advisory", first.advisory_id, 0)
    [edited] = fake_github.repo_advisories(REPO)  # the same advisory, edited: never a second one
    assert "1 fixed since the last audit" in edited["description"] and weak_hash().title not in edited["description"]
    edits = [c for c in fake_github.requests if c.method == "PATCH" and "/security-advisories/" in c.path]
    assert len(edits) == 1 and not fake_github.issues


async def test_without_repository_advisories_a_public_repositorys_findings_are_withheld(
        port: GitHubPort, fake_github: FakeGitHub) -> None:
    without_code_scanning(fake_github, None)
    with pytest.raises(AdvisoriesUnavailable):
        await port.draft_advisories(REPO)
    done = await _publish(port, fake_github, [sql_injection()])
    assert (done.where, done.results, done.issue_number) == ("withheld", 1, None)
    assert not fake_github.issues and not fake_github.repo_advisories(REPO)


async def test_a_public_pull_requests_refused_upload_writes_no_advisory(
        port: GitHubPort, fake_github: FakeGitHub) -> None:
    without_code_scanning(fake_github, "write")
    done = await _publish(port, fake_github, [sql_injection()], branch=False)
    assert done.where == "withheld"
    assert not fake_github.issues and not fake_github.repo_advisories(REPO)
