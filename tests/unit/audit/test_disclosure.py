"""Where findings may be described (issue 30), pure: visibility, the Security tab's link, a pull request's changed
lines, the review's "Outside the diff" in a public security review, and the audit answer's listing."""

from __future__ import annotations

import dataclasses
from typing import Any

from reviewbot.app.port.pulls import visibility_of
from reviewbot.audit.disclosure import in_changed_lines, is_public, security_tab_url
from reviewbot.audit.service_record import AuditRecord, Publication
from reviewbot.jobs.audit.audit_record import published_text
from reviewbot.jobs.audit.audit_text import result_text
from reviewbot.jobs.audit.pull_lines import changed_by, described
from reviewbot.model import Usage
from reviewbot.review.findings.anchoring import Anchored, Placement
from reviewbot.review.findings.schema import Finding
from reviewbot.review.publish.markdown import ReviewReport, review_body

SQLI: dict[str, Any] = {"path": "app/db.py", "line": 5, "start_line": None, "side": "RIGHT", "severity": "critical",
                        "category": "security", "title": "User input is formatted into SQL", "body": "Use a parameter.",
                        "suggestion": None, "confidence": 0.9, "cwe": "CWE-89"}
DIFF = """diff --git a/app/db.py b/app/db.py
--- a/app/db.py
+++ b/app/db.py
@@ -5,1 +5,3 @@
 x = 1
+y = 2
+z = 3
"""


def test_only_what_github_says_is_private_or_internal_is_not_public() -> None:
    assert visibility_of({"private": False, "visibility": "public"}) == "public"
    assert visibility_of({"private": True, "visibility": "internal"}) == "internal"
    assert visibility_of({"private": True}) == "private"
    assert is_public(visibility_of({})) and is_public(visibility_of(None))  # unknown: disclose nothing
    assert not is_public("private") and not is_public("internal") and is_public("public") and is_public("")


def test_the_security_tabs_link_filters_reviewbots_open_alerts_and_a_pull_requests() -> None:
    url = "https://github.com/acme/w"
    assert security_tab_url(url) == f"{url}/security/code-scanning?query=is%3Aopen+tool%3Areviewbot"
    assert security_tab_url(url + "/", 31).endswith("?query=is%3Aopen+tool%3Areviewbot+pr%3A31")


def test_a_finding_is_on_the_pull_request_when_one_of_its_lines_was_added() -> None:
    changed = changed_by(DIFF)
    assert changed == {"app/db.py": frozenset({6, 7})}
    assert in_changed_lines("app/db.py", 5, 6, changed) and not in_changed_lines("app/db.py", 5, 5, changed)
    assert not in_changed_lines("app/other.py", 6, 6, changed)
    assert described([SQLI, SQLI | {"line": 7}, SQLI | {"line": 8, "start_line": 6}], changed) == [
        "app/db.py:7", "app/db.py:8"]


def record(visibility: str, branch: str = "main", in_diff: tuple[str, ...] = ()) -> AuditRecord:
    return AuditRecord(id="a", installation_id=1, repo="acme/w", branch=branch, sha="0" * 40, paths=[],
                       status="done", created=0.0, model="m", config={}, chunks=[], estimate_usd=0.0, blobs={},
                       repo_url="https://github.com/acme/w", visibility=visibility, in_diff=list(in_diff),
                       findings=[SQLI, SQLI | {"line": 9, "title": "Table name in DDL"}],
                       publication=Publication(where="code-scanning", status="complete", results=2))


def test_a_public_branchs_answer_counts_and_links_a_private_ones_lists() -> None:
    public = result_text(record("public"))
    assert "🔴 **Critical** 2" in public and "app/db.py" not in public and "SQL" not in public
    assert "2 finding(s) are not described here" in public and "tool%3Areviewbot)" in public
    private = result_text(record("internal"))
    assert "`app/db.py` line 5: User input is formatted into SQL (CWE-89)" in private
    pull = result_text(record("public", "refs/pull/3/head", ("app/db.py:9",)))
    assert "line 9: Table name in DDL" in pull and "line 5" not in pull and "pr%3A3" in pull
    assert "1 finding(s) on code this pull request does not change" in pull


def make(**kw: object) -> Finding:
    return Finding.model_validate(SQLI | kw)


def body(security: bool, public: bool) -> str:
    inside, outside = make(path="app/calc.py", line=2, title="Inside", cwe="CWE-682"), make()
    report = ReviewReport(summary="", usage=Usage(), model="m", files_reviewed=1, security=security, public=public,
                          placement=Placement(inline=(Anchored(inside, 2, None),), outside=(outside,)))
    return review_body(report)


def test_only_a_security_review_of_a_public_repository_counts_what_lies_outside_the_diff() -> None:
    counted = body(security=True, public=True)
    assert "1 finding(s) (1 critical) on code this pull request does not change" in counted
    assert SQLI["title"] not in counted and "app/db.py" not in counted and "CWE-89" not in counted
    for listed in (body(security=True, public=False), body(security=False, public=True),
                   body(security=False, public=False)):
        assert SQLI["title"] in listed and "`app/db.py`" in listed


def test_a_public_repositorys_refused_upload_says_where_the_findings_are_and_what_to_enable() -> None:
    advisory = Publication(where="advisory", status="edited", results=1, advisory_id="GHSA-x", new=1,
                           reason="the App has not been granted the security_events permission")
    said = published_text(advisory)
    assert "private draft security advisory" in said and "`security_events: write`" in said
    withheld = published_text(Publication(where="withheld", status="edited", results=1, reason="r"))
    assert "not published anywhere its readers would see them" in withheld
    assert "`security_events: write`" in withheld and "`repository_advisories: write`" in withheld
    answer = result_text(dataclasses.replace(record("public"), publication=Publication(
        where="withheld", status="edited", results=2)))
    assert "2 finding(s) are not described here" in answer and "in the audit record only" in answer
    assert "SQL" not in answer and "app/db.py" not in answer
