"""An audit published to GitHub code scanning through the port, against the fake GitHub: the SARIF upload is
accepted and processed, alerts open, persist and close across audits; without code scanning, one tracking issue."""

from __future__ import annotations

import base64
import dataclasses
import gzip
import json

import pytest

from reviewbot.app.port import GitHubPort
from reviewbot.app.port.code_scanning import check_processed
from reviewbot.audit.findings import AuditFinding
from reviewbot.audit.publish import Published, publish_audit
from reviewbot.audit.sarif import build_sarif, encode_sarif
from reviewbot.audit.tracking import TITLE
from reviewbot.errors import CodeScanningUnavailable, SarifRejected, Waiting
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.sarif_shapes import CATEGORY, COMMIT, sql_injection, unclassified, weak_hash

KEY = b"k" * 32
REF = "refs/heads/main"


async def _processed(port: GitHubPort, published: Published) -> None:
    """Poll as the finishing job does: each `Waiting` would defer the job; here the next look comes at once."""
    assert published.where == "code-scanning" and published.sarif_id
    for attempt in range(5):
        try:
            status = await check_processed(port, REPO, published.sarif_id, attempt, first_s=5.0)
        except Waiting as waiting:
            assert waiting.retry_after and waiting.retry_after >= 5
            continue
        assert status.processing_status == "complete" and status.errors == ()
        return
    raise AssertionError("the upload never completed")


async def _publish(port: GitHubPort, findings: list[AuditFinding], bot: str, cost: float = 0.25) -> Published:
    return await publish_audit(port, REPO, findings, category=CATEGORY, commit_sha=COMMIT, ref=REF,
                               bot_login=bot, key=KEY, cost_usd=cost, repo_url=f"https://github.com/{REPO}")


async def test_alerts_open_then_persist_and_close_across_audits(port: GitHubPort, fake_github: FakeGitHub) -> None:
    first = await _publish(port, [sql_injection(), weak_hash(), unclassified()], fake_github.bot_login)
    await _processed(port, first)
    alerts = fake_github.alerts(REPO)
    assert sorted((a["rule_id"], a["path"], a["state"]) for a in alerts) == [
        ("reviewbot/cwe-89", "app/views.py", "open"), ("reviewbot/cwe-916", "app/auth/passwords.py", "open"),
        ("reviewbot/security", "deploy/settings%20file.py", "open")]
    sql = next(a for a in alerts if a["rule_id"] == "reviewbot/cwe-89")
    assert (sql["related"], sql["flows"], sql["category"], sql["ref"]) == (2, 1, CATEGORY, REF)
    upload = next(iter(fake_github.sarif_uploads.values()))
    assert upload["commit_sha"] == COMMIT and upload["tool_name"] == "reviewbot"

    # The same bug, its lines moved by an unrelated edit: the same fingerprint, the same alert.
    moved = dataclasses.replace(sql_injection(), start_line=51, end_line=53)
    second = await _publish(port, [moved, unclassified()], fake_github.bot_login)
    await _processed(port, second)
    after = {a["rule_id"]: a for a in fake_github.alerts(REPO)}
    assert len(after) == 3  # nothing opened twice
    assert after["reviewbot/cwe-89"]["state"] == "open" and after["reviewbot/cwe-89"]["start_line"] == 51
    assert after["reviewbot/cwe-89"]["number"] == sql["number"]
    assert after["reviewbot/cwe-916"]["state"] == "fixed"  # no longer reported by the same category
    assert after["reviewbot/security"]["state"] == "open"


async def test_an_empty_audit_closes_every_alert_of_its_category(port: GitHubPort, fake_github: FakeGitHub) -> None:
    await _processed(port, await _publish(port, [sql_injection()], fake_github.bot_login))
    await _processed(port, await _publish(port, [], fake_github.bot_login))
    assert [a["state"] for a in fake_github.alerts(REPO)] == ["fixed"]


async def test_without_code_scanning_one_tracking_issue_is_created_then_edited(
        port: GitHubPort, fake_github: FakeGitHub) -> None:
    fake_github.code_scanning_off.add(REPO)  # private, no Code Security: 403
    first = await _publish(port, [sql_injection(), weak_hash()], fake_github.bot_login, cost=1.5)
    assert first.where == "issue" and first.issue_number and "not enabled" in first.reason
    issue = fake_github.issues[(REPO, first.issue_number)]
    assert issue["title"] == TITLE and "$1.50" in issue["body"] and "first audit of this scope" in issue["body"]
    assert "CWE-89" in issue["body"] and "@admin" not in issue["body"]
    assert "`https://evil.example/x`" in issue["body"]  # shown as code by the Markdown rebuilding, not a link

    second = await _publish(port, [sql_injection(), unclassified()], fake_github.bot_login, cost=0.5)
    assert second.issue_number == first.issue_number and second.new == 1
    body = fake_github.issues[(REPO, first.issue_number)]["body"]
    assert "1 new, 1 fixed since the last audit" in body and "$0.50" in body
    assert [n for (r, n) in fake_github.issues if r == REPO] == [first.issue_number]  # never a second issue
    remembered = await publish_audit(port, REPO, [], category=CATEGORY, commit_sha=COMMIT, ref=REF,
                                     bot_login=fake_github.bot_login, key=KEY, tracking_issue=first.issue_number)
    assert remembered.issue_number == first.issue_number  # the number the caller remembered, checked and used
    stale = await publish_audit(port, REPO, [], category=CATEGORY, commit_sha=COMMIT, ref=REF,
                                bot_login=fake_github.bot_login, key=KEY, tracking_issue=999)
    assert stale.issue_number == first.issue_number  # a number that is gone: found again by its marker



async def test_a_look_alike_issue_is_not_taken_for_the_tracking_issue(
        port: GitHubPort, fake_github: FakeGitHub) -> None:
    fake_github.code_scanning_off.add(REPO)
    forged = await port.create_issue(REPO, TITLE, "x\n<!-- reviewbot:audit-issue {\"audits\":{}} mac=" + "0" * 32
                                     + " -->")
    published = await _publish(port, [weak_hash()], fake_github.bot_login)
    assert published.issue_number != forged
    fake_github.issues[(REPO, published.issue_number)]["state"] = "closed"  # closed by someone: reopened if new
    again = await _publish(port, [weak_hash(), sql_injection()], fake_github.bot_login)
    assert again.issue_number == published.issue_number
    assert fake_github.issues[(REPO, published.issue_number)]["state"] == "open"


async def test_an_installation_without_security_events_falls_back_too(
        port: GitHubPort, fake_github: FakeGitHub) -> None:
    installation = fake_github.installations[INSTALLATION]
    installation.permissions.pop("security_events")
    with pytest.raises(CodeScanningUnavailable):
        await port.upload_sarif(REPO, COMMIT, REF, encode_sarif(build_sarif([], category=CATEGORY).document))
    published = await _publish(port, [weak_hash()], fake_github.bot_login)
    assert published.where == "issue" and "security_events" in fake_github.issues[
        (REPO, published.issue_number or 0)]["body"]


async def test_uploads_github_would_refuse_are_reported(port: GitHubPort, fake_github: FakeGitHub) -> None:
    with pytest.raises(SarifRejected) as invalid:
        await port.upload_sarif(REPO, COMMIT, REF, "not base64!")
    assert invalid.value.status == 400
    document = build_sarif([weak_hash()], category=CATEGORY).document
    del document["runs"][0]["results"][0]["partialFingerprints"]
    sarif_id = await port.upload_sarif(REPO, COMMIT, REF, encode_sarif(document))
    with pytest.raises(SarifRejected) as failed:
        for attempt in range(3):
            try:
                await check_processed(port, REPO, sarif_id, attempt, first_s=5.0)
            except Waiting:
                continue
    assert any("partialFingerprints" in e for e in failed.value.errors)
    huge = base64.b64encode(gzip.compress(json.dumps({"pad": "x" * 11_000_000}).encode(), compresslevel=0))
    with pytest.raises(SarifRejected) as too_large:
        await port.upload_sarif(REPO, COMMIT, REF, huge.decode())
    assert too_large.value.status == 413


async def test_the_tracking_issue_is_found_again_by_its_signed_marker_and_its_author_not_by_a_copy(
        port: GitHubPort, fake_github: FakeGitHub) -> None:
    """The number remembered in Redis is lost, then: GitHub documents `creator` only as "the user that created the
    issue" (not whether an App's `<slug>[bot]` counts), so the lookup holds up when GitHub refuses that filter and
    when the slug is unknown; a person's issue carrying a copy of the signed marker is not ours."""
    fake_github.code_scanning_off.add(REPO)
    first = await _publish(port, [weak_hash()], fake_github.bot_login)
    ours = fake_github.issues[(REPO, first.issue_number or 0)]
    assert ours["user"]["login"] == fake_github.bot_login and ours["user"]["type"] == "Bot"
    copy = fake_github.add_issue(REPO, 90, TITLE, ours["body"], author="mallory")  # newer, same valid marker

    fake_github.inject("GET", rf"/repos/{REPO}/issues", 422, {"message": "Validation Failed"})  # creator refused
    refused = await _publish(port, [weak_hash(), sql_injection()], fake_github.bot_login)
    unknown_slug = await _publish(port, [sql_injection()], "")
    assert refused.issue_number == unknown_slug.issue_number == first.issue_number
    assert [n for (r, n) in fake_github.issues if r == REPO] == [first.issue_number, 90]  # none created
    assert fake_github.issues[(REPO, 90)]["body"] == copy["body"]  # the copy was never edited
    listings = [c.query for c in fake_github.requests if c.method == "GET" and c.path == f"/repos/{REPO}/issues"]
    assert {q.get("creator") for q in listings} == {fake_github.bot_login, None}
