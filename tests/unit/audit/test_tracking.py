"""The tracking issue's body: counts, new and fixed since the last audit, a marker only the App can sign, and a
size GitHub accepts however many findings there are."""

from __future__ import annotations

import pytest

from reviewbot.audit.findings import AuditFinding
from reviewbot.audit.tracking import read_tracking, tracking_body
from tests.gfm import assert_safe_for_github
from tests.sarif_shapes import CATEGORY, COMMIT, many, sql_injection, unclassified, weak_hash

KEY = b"s" * 32


def test_counts_by_severity_and_cwe_and_the_changes_since_the_last_audit() -> None:
    first, new = tracking_body([sql_injection(), weak_hash()], category=CATEGORY, commit_sha=COMMIT, cost_usd=2.0,
                               reason="not enabled", remembered=None, key=KEY)
    assert new == 2 and "first audit of this scope" in first and "$2.00" in first
    assert "| 🔴 **Critical** | 1 |" in first and "| CWE-916 (weak password hashing) | 1 |" in first
    remembered = read_tracking(first, KEY)
    assert remembered == {CATEGORY: ["0123456789abcdef", "fedcba9876543210"]}
    second, new = tracking_body([sql_injection(), unclassified()], category=CATEGORY, commit_sha=COMMIT,
                                cost_usd=0.1, reason="not enabled", remembered=remembered, key=KEY)
    assert new == 1 and "1 new, 1 fixed since the last audit" in second
    assert "`deploy/settings file.py:3`: Debug on in production" in second and " · new · " in second


def test_other_scopes_are_remembered_and_only_the_apps_key_signs_the_marker() -> None:
    body, _ = tracking_body([weak_hash()], category="reviewbot/audit/dev/all/", commit_sha=COMMIT, cost_usd=0,
                            reason="r", remembered={CATEGORY: ["0123456789abcdef"]}, key=KEY)
    assert read_tracking(body, KEY) == {"reviewbot/audit/dev/all/": ["fedcba9876543210"],
                                        CATEGORY: ["0123456789abcdef"]}
    assert read_tracking(body, b"another key" * 3) is None
    assert read_tracking(body.replace("fedcba9876543210", "0000000000000000"), KEY) is None
    assert read_tracking(body + "\nappended by someone", KEY) is None  # the marker must be the last line


def test_the_body_stays_under_githubs_limit_with_thousands_of_findings() -> None:
    body, new = tracking_body(many(5_000), category=CATEGORY, commit_sha=COMMIT, cost_usd=9.0, reason="r",
                              remembered={"reviewbot/audit/old/all/": [f"{i:016x}" for i in range(3_000)]}, key=KEY)
    assert len(body) < 65_536 and new == 5_000
    assert "and 4950 less severe finding(s)" in body
    assert sum(len(v) for v in (read_tracking(body, KEY) or {}).values()) == 1_500


HOSTILE = ["cc @security-team", "[Fix now](https://evil.example/login)", "![p](https://evil.example/p.png)",
           "<img src=x onerror=alert(1)> <details><summary>x", "see www.evil.example", "write to root@evil.example",
           "same as other/repo#12", "`` @team ``` `x"]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_the_issue_renders_inert_with_hostile_titles_bodies_file_names_and_reasons(hostile: str) -> None:
    finding = AuditFinding(path=f"app/{hostile}.py", start_line=1, end_line=2, title=hostile, cwe="CWE-79",
                           severity="major", body=f"body {hostile}", fingerprint="3333333333333333")
    body, _ = tracking_body([finding, weak_hash()], category=f"reviewbot/{hostile}", commit_sha=COMMIT,
                            cost_usd=1.0, reason=hostile, remembered=None, key=b"k")
    assert_safe_for_github(body, repo="owner/repo")
