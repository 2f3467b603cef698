"""Remembered dismissals (pure): what they match, where they apply, when they lapse, how the summary lists them."""

from __future__ import annotations

import pytest

from reviewbot.review.config import RepoConfig
from reviewbot.review.findings.anchoring import Anchored
from reviewbot.review.findings.dismissals import Learning, code_lines, held_back, normalise_rule
from reviewbot.review.findings.fingerprints import anchored_code, code_key
from reviewbot.review.findings.scope import dismissal_scope
from reviewbot.review.publish.header import read_header
from reviewbot.review.publish.markdown import Links, comment_body
from reviewbot.review.publish.posting import plan
from tests.gfm import assert_safe_for_github
from tests.unit.review.test_posting import DIFF, HEAD_CALC, KEY, make, report_for

CODE = ["        result += i.price * i.qty"]
CK = code_key("app/calc.py", "bug", CODE)
TITLE = "Quantity ignored in the total"


def thread_learning(**kw: object) -> Learning:
    base: dict[str, object] = {"rule": normalise_rule(TITLE), "code_key": CK, "path": "app/calc.py",
                               "category": "bug", "lines": 1, "title": TITLE, "by": "maintainer-mo",
                               "reason": "won't fix", "pr": 7, "at": 1_764_547_200.0}
    return Learning(**(base | kw))  # type: ignore[arg-type]


def test_a_learning_matches_its_code_anywhere_and_its_title_in_the_same_file_while_the_code_is_there() -> None:
    learning = thread_learning()
    assert held_back(CK, "app/other.py", "Something else", [learning]) is learning
    moved = ["# a comment pushed everything down", *HEAD_CALC]
    assert held_back("ck2", "app/calc.py", "Quantity ignored in the total!", [learning],
                     head_files={"app/calc.py": moved}) is learning
    assert held_back("ck2", "app/other.py", TITLE, [learning], head_files={"app/other.py": moved}) is None


def test_a_learning_lapses_when_the_code_it_names_is_rewritten() -> None:
    rewritten = [line.replace("i.price * i.qty", "i.price * i.quantity") for line in HEAD_CALC]
    assert held_back("ck2", "app/calc.py", TITLE, [thread_learning()], head_files={"app/calc.py": rewritten}) is None
    assert held_back("ck2", "app/calc.py", TITLE, [thread_learning()]) is None  # the file unknown: no guess
    assert held_back("ck2", "app/calc.py", TITLE, [thread_learning(lines=0)],  # unknown extent: code key only
                     head_files={"app/calc.py": HEAD_CALC}) is None


def test_a_pull_request_only_learning_holds_on_that_pull_request_only() -> None:
    narrow = thread_learning(repository=False)
    assert held_back(CK, "app/calc.py", TITLE, [narrow], number=7) is narrow
    assert held_back(CK, "app/calc.py", TITLE, [narrow], number=8) is None
    assert narrow.store_key == f"{CK}#pr7" and thread_learning().store_key == CK


def test_a_configured_rule_matches_titles_containing_its_words_under_its_glob() -> None:
    learning = Learning(rule="item count", path="app/*.py", source="config")
    assert held_back("", "app/calc.py", "Divides by the item count", [learning])
    assert not held_back("", "lib/calc.py", "Divides by the item count", [learning])
    assert not held_back("", "app/calc.py", "Divides by zero", [learning])


@pytest.mark.parametrize(("role", "by_author", "severity", "security", "repository"), [
    ("write", True, "minor", False, False),  # the PR's author: this PR only
    ("write", False, "major", False, True),  # another person with write access: the repository
    ("write", False, "critical", False, False),  # critical: needs maintain or admin
    ("write", False, "minor", True, False),  # security (a CWE): needs maintain or admin
    ("maintain", False, "critical", True, True),
    ("admin", True, "critical", True, True),  # an admin who opened the PR may still decide for the repository
])
def test_who_may_dismiss_for_the_whole_repository(role: str, by_author: bool, severity: str, security: bool,
                                                  repository: bool) -> None:
    scope = dismissal_scope(role=role, by_author=by_author, severity=severity, security=security)
    assert scope.repository is repository and bool(scope.why) is not repository


def test_the_posted_comment_is_read_back_as_its_title_not_its_severity_badge() -> None:
    finding = make(severity="critical", category="security", cwe="CWE-89", unverified=True,
                   title="SQL built from `name` · with *input*")
    posted = read_header(comment_body(Anchored(finding, 4, None), marker="<!-- m -->"))
    assert posted is not None
    assert (posted.severity, posted.category, posted.cwe) == ("critical", "security", "CWE-89")
    assert posted.title == "SQL built from name · with input"
    assert normalise_rule(posted.title) == "sql built from name with input"
    assert read_header("a person's comment") is None
    assert code_lines(["  a", "", "b  "]) == 2


def test_every_review_lists_what_learnings_held_back_with_who_when_and_how_to_undo() -> None:
    hostile = thread_learning(reason="cc @everyone ![x](https://evil.example/p.png) <img src=x>", by="mo")
    security = make(line=4, category="security", cwe="CWE-79", title="Reflected <script> for @admins")
    for finding in (make(line=4, title=TITLE), security):
        learning = hostile if finding.cwe is None else thread_learning(
            repository=False, reason="tests only", category="security", cwe="CWE-79",
            code_key=code_key("app/calc.py", "security", CODE))
        publication = plan(report_for(finding), DIFF, head_sha="h", key=KEY, config=RepoConfig(),
                           learnings=(learning,), number=7, app="reviewbot-test",
                           links=Links(repo="https://github.com/acme/widgets"))
        body = publication.payload["body"]
        assert publication.payload["comments"] == [] and publication.dismissed == 1
        assert "1 finding(s) were held back by remembered dismissals" in body
        heading = "#### Dismissed security findings" if finding.cwe else "#### Held back by remembered dismissals"
        assert heading in body and "2025-12-01" in body and "`@reviewbot-test forget`" in body
        assert f"`reviewbot learnings forget acme/widgets {learning.store_key}`" in body
        assert "(this pull request only)" in body if finding.cwe else "in pull request 7" in body
        assert_safe_for_github(body, "github.com", "acme/widgets")
    assert anchored_code(DIFF.file("app/calc.py"), "RIGHT", 4, 4) == CODE
