"""Matching a review's findings to reviewbot's open code-scanning alerts: same rule, same file, overlapping lines
once the alert's base lines are moved to the head; alerts whose code a pull request rewrites; the summary's lines
(number only on a public repository); a learning from a dismissed alert."""

from __future__ import annotations

import difflib

from reviewbot.review.diff.parse import ParsedDiff, parse_diff
from reviewbot.review.findings.alerts import Alert, alert_rule_id, fixed_alerts, head_range, known_alert, to_head
from reviewbot.review.findings.dismissals import Learning, held_back
from reviewbot.review.findings.fingerprints import code_key
from reviewbot.review.findings.schema import Finding
from reviewbot.review.publish.alert_lines import Known, alert_section
from reviewbot.review.publish.markdown import Links

BASE = [f"line {n}" for n in range(1, 21)]


def diff_of(path: str, base: list[str], head: list[str]) -> ParsedDiff:
    body = "".join(difflib.unified_diff([f"{x}\n" for x in base], [f"{x}\n" for x in head], f"a/{path}",
                                        f"b/{path}", n=3))
    return parse_diff(f"diff --git a/{path} b/{path}\n{body}")


def alert(number: int = 12, start: int = 10, end: int = 10, cwe: str | None = "CWE-89",
          path: str = "app/db.py") -> Alert:
    return Alert(number, alert_rule_id(cwe), path, start, end, f"https://github.com/o/r/security/code-scanning/{number}")


def test_the_rule_is_what_an_audit_gives_github() -> None:
    assert alert_rule_id("CWE-89") == "reviewbot/cwe-89" and alert_rule_id(None) == "reviewbot/security"


def test_base_lines_move_to_the_head_and_rewritten_ones_are_gone() -> None:
    head = [*BASE[:2], "new a", "new b", *BASE[2:9], "rewritten 10", *BASE[10:]]
    file = diff_of("app/db.py", BASE, head).file("app/db.py")
    assert to_head(file, 1) == 1 and to_head(file, 5) == 7  # two lines added above
    assert to_head(file, 10) is None and to_head(file, 18) == 20  # rewritten; after the last hunk, shifted
    assert head_range(alert(start=9, end=11), diff_of("app/db.py", BASE, head)) == (11, 13)


def test_a_finding_is_the_alert_on_the_same_rule_file_and_overlapping_lines() -> None:
    diff = diff_of("app/db.py", BASE, ["docstring", *BASE])  # everything one line down
    known = alert(start=10, end=11)
    assert known_alert("app/db.py", "CWE-89", 12, 12, [known], diff) == known  # base 11 is head 12
    assert known_alert("app/db.py", "CWE-89", 10, 10, [known], diff) is None  # above it now
    assert known_alert("app/db.py", "CWE-79", 11, 11, [known], diff) is None  # another rule
    assert known_alert("app/other.py", "CWE-89", 11, 11, [known], diff) is None


def test_an_alert_whose_code_is_rewritten_and_not_found_again_may_be_fixed() -> None:
    head = [*BASE[:9], "safe query", *BASE[10:]]
    diff = diff_of("app/db.py", BASE, head)
    rewritten, untouched = alert(12, 10, 10), alert(13, 2, 2)
    [fixed] = fixed_alerts([rewritten, untouched], diff, [], reviewed=("app/db.py",), security=False)
    assert fixed.alert == rewritten and not fixed.verified  # no security review: nothing confirmed it
    [verified] = fixed_alerts([rewritten], diff, [], reviewed=("app/db.py",), security=True)
    assert verified.verified
    assert fixed_alerts([rewritten], diff, [], reviewed=(), security=True)[0].verified is False  # file not read
    assert fixed_alerts([rewritten], diff, [12], reviewed=("app/db.py",), security=True) == []  # found again


def finding(line: int = 11) -> Finding:
    return Finding(path="app/db.py", line=line, severity="critical", category="security",
                   title="User input is formatted into SQL", body="b", confidence=0.9, cwe="CWE-89")


def test_a_public_summary_names_an_alert_by_number_only() -> None:
    known = [Known(finding(), alert(12))]
    diff = diff_of("app/db.py", BASE, [*BASE[:2], "x", *BASE[3:]])
    fixed = fixed_alerts([alert(13, 3, 3)], diff, [], reviewed=("app/db.py",), security=True)
    public = "\n".join(alert_section(known, fixed, links=Links(), public=True))
    assert "already open as code-scanning alert 12" in public and "Fixes code-scanning alert 13" in public
    assert "SQL" not in public and "app/db.py" not in public and "https://" not in public
    links = Links(repo="https://github.com/o/r")
    private = "\n".join(alert_section(known, fixed, links=links, public=False))
    assert "User input is formatted into SQL" in private and "`app/db.py` line 11" in private
    assert "[code-scanning alert 12](https://github.com/o/r/security/code-scanning/12)" in private
    # An address that is not this repository's alert page is not linked.
    elsewhere = [Known(finding(), Alert(14, "reviewbot/cwe-89", "app/db.py", 1, 1, "https://evil.example/x"))]
    assert "evil" not in "\n".join(alert_section(elsewhere, [], links=links, public=False))
    assert alert_section([], [], links=Links(), public=False) == []


def test_a_dismissed_alert_holds_back_the_finding_on_its_code_wherever_it_moved() -> None:
    code = ["    return conn.execute(f\"SELECT '{name}'\")"]
    learning = Learning(rule=alert_rule_id("CWE-89"), code_key=code_key("app/db.py", "CWE-89", code),
                        path="app/db.py", source="code-scanning", category="CWE-89", lines=1, cwe="CWE-89",
                        alert=12, reason="false positive", by="mo")
    head = ["import sqlite3", "", "def find(conn, name):", '    """Doc."""', *code]
    files = {"app/db.py": head}

    def holds(line: int, cwe: str | None = "CWE-89", path: str = "app/db.py") -> bool:
        return held_back("review-key", path, "any title", [learning], head_files=files, cwe=cwe,
                         lines=(line, line)) is not None

    assert holds(5) and not holds(3)  # the code is on line 5 now; line 3 is another place
    assert not holds(5, cwe="CWE-79") and not holds(5, path="app/other.py")
    assert learning.store_key == "alert:12"
    # An audit's finding carries the same code key as its fingerprint: matched at once.
    assert held_back(learning.code_key, "app/db.py", "t", [learning], cwe="CWE-89", lines=(1, 1)) is learning
    files["app/db.py"] = [*head[:4], "    return conn.execute(\"SELECT ?\", (name,))"]  # rewritten: lapses
    assert not holds(5)
