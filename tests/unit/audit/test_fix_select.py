"""Which audit findings a fix is for, one pull request per finding or file, the re-audit's verdict, the fix pull
request's body, the public repository's refusal, and the CI sentence (pure)."""

from __future__ import annotations

import hashlib

from reviewbot.app.port.commit_checks import CheckRun
from reviewbot.audit.findings import AuditFinding, Evidence
from reviewbot.audit.fix_select import FixGroup, finding_at, groups, public_refusal, pull_body, select, still_reported
from reviewbot.jobs.fix.ci_report import ci_text


def finding(path: str, line: int, cwe: str | None, severity: str = "critical", *, verified: bool = True,
            title: str = "") -> AuditFinding:
    return AuditFinding(path=path, start_line=line, end_line=line + 1, title=title or f"{cwe} in {path}", cwe=cwe,
                        severity=severity, body="Because.",  # type: ignore[arg-type]
                        fingerprint=hashlib.sha256(f"{path}:{line}".encode()).hexdigest()[:16], verified=verified,
                        evidence=(Evidence("app/routes.py", 3, "input", "source"),))


SQLI = finding("app/db.py", 5, "CWE-89")
XSS = finding("web/page.py", 9, "CWE-79", "major")
PATH = finding("app/db.py", 20, "CWE-22", "minor")
GUESS = finding("app/db.py", 30, "CWE-89", verified=False)
ALL = [PATH, XSS, GUESS, SQLI]


def test_selection_takes_verified_findings_by_class_alert_or_fingerprint() -> None:
    assert select(ALL, [], {}) == select(ALL, ["all"], {}) == [SQLI, XSS, PATH]  # most severe first, verified only
    assert select(ALL, ["CWE-89"], {}) == [SQLI]
    assert select(ALL, ["#4", "#7"], {4: XSS, 7: GUESS}) == [XSS]  # an unverified finding is never fixed
    assert select(ALL, [f"fp:{PATH.fingerprint}", "CWE-79"], {}) == [XSS, PATH]
    assert select(ALL, ["CWE-352"], {}) == []
    assert finding_at(ALL, "app/db.py", 6) == SQLI and finding_at(ALL, "app/db.py", 7) is None


def test_one_group_per_finding_or_per_file_each_with_its_own_branch() -> None:
    each = groups([PATH, SQLI, XSS], "finding")
    assert [g.findings for g in each] == [(SQLI,), (XSS,), (PATH,)]
    assert each[0].branch == "reviewbot/fix/" + SQLI.fingerprint[:12]
    assert each[0].targets[0].paths == ("app/db.py", "app/routes.py")  # the evidence's files may change too
    files = groups([PATH, SQLI, XSS], "file")
    assert [g.findings for g in files] == [(SQLI, PATH), (XSS,)]
    assert files[0].key != SQLI.fingerprint and files[0].key == FixGroup((PATH, SQLI)).key


def test_the_re_audit_still_reports_a_finding_of_the_same_file_and_class_or_title() -> None:
    group = FixGroup((SQLI,))
    assert still_reported(group, [("app/db.py", "cwe-89", "Something else")])
    assert still_reported(group, [("app/db.py", None, "CWE-89 in app/db.py!")])
    assert not still_reported(group, [("app/other.py", "CWE-89", "x"), ("app/db.py", "CWE-22", "y")])


def test_the_pull_request_links_its_alert_or_the_tracking_issue_and_says_where_ci_is_told() -> None:
    body = pull_body(FixGroup((SQLI, PATH)), "Bind the name.", repo_url="https://github.com/o/r",
                     alert_numbers={SQLI.fingerprint: 12}, tracking_issue=None, asked_in=3)
    assert "code-scanning alert [#12](https://github.com/o/r/security/code-scanning/12)" in body
    assert "Security tab" in body and "reported on #3" in body and "Bind the name." in body
    tracked = pull_body(FixGroup((XSS,)), "", repo_url="https://github.com/o/r", alert_numbers={},
                        tracking_issue=40, asked_in=None)
    assert "tracking issue #40" in tracked and "reported here" in tracked


def test_a_public_repositorys_refusal_counts_and_names_nothing() -> None:
    text = public_refusal([SQLI, XSS])
    assert "this repository is public" in text and "🔴 **Critical** 1 · 🟠 **Major** 1" in text
    assert all(word not in text for word in ("app/db.py", "CWE-89", SQLI.title, "web/page.py"))


def test_the_ci_sentence_names_the_failed_checks_or_counts_the_passed_ones() -> None:
    def run(name: str, conclusion: str) -> CheckRun:
        return CheckRun(name, "completed", conclusion, "github-actions")

    assert ci_text([run(f"t{i}", "success") for i in range(13)] + [run("lint", "skipped")]) == \
        ("ci-passed", "CI passed: 14 checks.")
    assert ci_text([run("tests (3.12)", "failure"), run("lint", "success")]) == \
        ("ci-failed", "CI failed: `tests (3.12)` — the fix was left unmerged.")
    many = ci_text([run(f"t{i}", "timed_out") for i in range(7)])[1]
    assert many.startswith("CI failed: `t0`, `t1`") and "and 2 more" in many
