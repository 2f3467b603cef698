"""A public repository's thread: what a security review and the dismissals may describe there."""

from __future__ import annotations

import dataclasses

from reviewbot.model import Usage
from reviewbot.review.findings.anchoring import Placement
from reviewbot.review.findings.dismissals import Learning
from reviewbot.review.findings.schema import Finding
from reviewbot.review.publish.heldback import HeldBack, held_back_section
from reviewbot.review.publish.markdown import Links, ReviewReport, review_body

SQLI = Finding(path="app/db.py", line=12, severity="critical", category="security", cwe="CWE-89",
               title="SQL built from the request's name", body="`name` reaches `execute` unquoted.", confidence=0.9)


def security_review(public: bool) -> ReviewReport:
    return ReviewReport(summary="The login query in app/db.py concatenates the user name.", usage=Usage(),
                        model="m", files_reviewed=1, placement=Placement(inline=(), outside=(SQLI,)),
                        security=True, public=public)


def test_a_public_security_reviews_summary_is_withheld_when_findings_lie_outside_the_diff() -> None:
    body = review_body(security_review(public=True))
    assert "app/db.py" not in body and "concatenates" not in body and "CWE-89" not in body
    assert "summary is not shown" in body and "1 finding(s) (1 critical)" in body
    private = review_body(security_review(public=False))
    assert "concatenates the user name" in private and "app/db.py" in private
    inside_only = dataclasses.replace(security_review(public=True), placement=Placement(inline=(), outside=()))
    assert "concatenates the user name" in review_body(inside_only)


def test_dismissed_security_findings_are_counted_on_a_public_repository() -> None:
    held = [HeldBack(SQLI, Learning(rule="sql built from the request's name", path="app/db.py", by="mo",
                                    reason="internal tool", cwe="CWE-89"))]
    links = Links(repo="https://github.com/acme/site")
    public = "\n".join(held_back_section(held, links=links, app="reviewbot", public=True))
    assert "1 security finding(s)" in public
    assert "app/db.py" not in public and "SQL built" not in public and "CWE-89" not in public
    private = "\n".join(held_back_section(held, links=links, app="reviewbot"))
    assert "app/db.py" in private and "CWE-89" in private and "internal tool" in private
