"""What the audit record says about where its findings went, and the findings it publishes (fingerprinted from
the code, so an alert keeps its identity when lines move)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reviewbot.audit.service_record import Publication
from reviewbot.jobs.audit.audit_record import audit_findings, published_text

SQLI: dict[str, Any] = {"path": "app/db.py", "line": 3, "start_line": None, "side": "RIGHT", "severity": "critical",
                        "category": "security", "title": "User input is formatted into SQL", "body": "Use a parameter.",
                        "suggestion": None, "confidence": 0.9, "cwe": "CWE-89"}
CODE = "import db\n\ncur.execute(f\"SELECT * FROM t WHERE id={uid}\")\n"


def test_a_finding_keeps_its_fingerprint_when_its_line_moves_but_not_when_its_code_changes() -> None:
    [before] = audit_findings([SQLI], {"app/db.py": CODE}.get)
    [moved] = audit_findings([SQLI | {"line": 5, "title": "SQL built from input"}],
                             {"app/db.py": "# a\n# b\n" + CODE}.get)
    [changed] = audit_findings([SQLI], {"app/db.py": CODE.replace("uid", "name")}.get)
    assert before.fingerprint == moved.fingerprint != changed.fingerprint
    assert (before.start_line, before.end_line, before.cwe, before.verified) == (3, 3, "CWE-89", True)
    [gone] = audit_findings([SQLI | {"unverified": True}], {}.get)  # the file is not in the tree: the title stands in
    assert gone.fingerprint and not gone.verified


def test_the_record_says_where_the_findings_went() -> None:
    upload = Publication(where="code-scanning", status="processing", results=3, sarif_id="x")
    assert published_text(upload) == "uploaded to code scanning: 3 alert(s), being processed"
    assert published_text(replace(upload, status="complete")) == "published to code scanning: 3 alert(s)"
    assert "GitHub's limits: 2 results over" in published_text(
        replace(upload, status="complete", cut=["2 results over"]))
    assert published_text(replace(upload, status="failed", errors=["bad region"])).endswith(": bad region")
    issue = Publication(where="issue", results=3, issue_number=7, new=1, reason="not enabled", status="edited")
    assert published_text(issue) == "code scanning is not available here (not enabled): tracking issue #7 (1 new)"
    assert "publishing failed (403)" in published_text(Publication(where="none", status="failed", errors=["403"]))
    assert published_text(None).startswith("the audit record")
