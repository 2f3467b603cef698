"""The audit's SARIF: valid against the pinned SARIF 2.1.0 schema in every shape, what GitHub reads is there,
untrusted text stays inert, identity survives line moves, and GitHub's limits are kept by deterministic cuts."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from reviewbot.audit.findings import AuditFinding, Evidence, audit_fingerprint, from_finding
from reviewbot.audit.sarif import Limits, audit_category, build_sarif, encode_sarif
from reviewbot.audit.sarif_rules import sarif_text
from reviewbot.review.findings.schema import Finding
from tests.gfm import assert_safe_for_github, assert_safe_sarif_message
from tests.sarif_shapes import CATEGORY, COMMIT, many, shapes, sql_injection, weak_hash

SCHEMA = json.loads((Path(__file__).resolve().parents[3] / "specs" / "sarif" / "sarif-2.1.0.json").read_text())


@pytest.mark.parametrize("name", sorted(shapes()))
def test_every_shape_is_valid_sarif_2_1_0(name: str) -> None:
    document = shapes()[name].document
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in Draft202012Validator(SCHEMA).iter_errors(document)]
    assert errors == []
    assert document["version"] == "2.1.0" and len(document["runs"]) == 1
    assert document["runs"][0]["automationDetails"]["id"] == CATEGORY


def test_rules_carry_what_github_shows() -> None:
    run = shapes()["findings"].document["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert set(rules) == {"reviewbot/cwe-89", "reviewbot/cwe-916", "reviewbot/security"}
    sql = rules["reviewbot/cwe-89"]
    assert sql["shortDescription"]["text"] == "SQL injection (CWE-89)"
    assert sql["fullDescription"]["text"] and sql["help"]["text"] and sql["help"]["markdown"]
    assert sql["properties"]["tags"] == ["security", "external/cwe/cwe-89"]
    assert sql["properties"]["security-severity"] == "9.5" and sql["properties"]["precision"] == "high"
    assert rules["reviewbot/cwe-916"]["properties"]["precision"] == "medium"  # its finding is unverified
    assert run["tool"]["driver"]["name"] == "reviewbot" and run["tool"]["driver"]["version"] == "1.0.0"
    assert all(run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"] for r in run["results"])


def test_evidence_in_other_files_is_a_code_flow_from_source_to_sink() -> None:
    result = shapes()["findings"].document["runs"][0]["results"][0]
    assert result["ruleId"] == "reviewbot/cwe-89" and result["level"] == "error"
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 41, "endLine": 43}
    related = [(r["id"], r["physicalLocation"]["artifactLocation"]["uri"]) for r in result["relatedLocations"]]
    assert related == [(1, "app/forms.py"), (2, "app/search.py")]
    flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [step["location"]["physicalLocation"]["artifactLocation"]["uri"] for step in flow] == \
        ["app/forms.py", "app/search.py", "app/views.py"]
    assert "[forms.py:12](1)" in result["message"]["text"] and "Suggested fix:" in result["message"]["text"]
    assert result["partialFingerprints"]["primaryLocationLineHash"] == "0123456789abcdef:1"


def test_untrusted_text_pings_nobody_and_links_nowhere() -> None:
    text = shapes()["findings"].document["runs"][0]["results"][0]["message"]["text"]
    assert "@admin" not in text and "@\u200dadmin" in text
    assert "https://evil.example" not in text and "hxxps[:]//evil[.]example/x" in text
    assert sarif_text("[click me](https://evil.example)") == "[click me] (hxxps[:]//evil[.]example)"
    assert sarif_text("see views.py and www.evil.com") == "see views.py and www[.]evil[.]com"
    assert "ghp_" not in sarif_text("token ghp_" + "a" * 36)


def test_unverified_findings_say_so() -> None:
    result = next(r for r in shapes()["findings"].document["runs"][0]["results"] if r["ruleId"] == "reviewbot/cwe-916")
    assert result["properties"] == {"severity": "major", "verified": False, "tags": ["unverified"]}
    assert "Unverified" in result["message"]["text"]


def test_paths_are_repository_relative_uris_and_outside_paths_are_left_out() -> None:
    spaced = shapes()["findings"].document["runs"][0]["results"][2]
    assert spaced["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "deploy/settings%20file.py"
    outside = [AuditFinding(path=p, start_line=1, end_line=1, title="t", cwe=None, severity="minor", body="b",
                            fingerprint=f"{i:016x}") for i, p in enumerate(["../etc/passwd", "/abs.py", "a//b.py"])]
    sarif = build_sarif([*outside, weak_hash()], category=CATEGORY)
    assert sarif.results == 1 and len(sarif.cut) == 3


def test_cuts_keep_the_most_severe_and_say_what_was_cut() -> None:
    by_count = shapes()["cut_results"]
    assert by_count.results == 25 and by_count.cut == ("15 least severe finding(s) over GitHub's 25 results per "
                                                       "run were left out",)
    levels = [r["level"] for r in by_count.document["runs"][0]["results"]]
    assert levels == sorted(levels, key=["error", "warning", "note"].index)
    assert by_count.document["runs"][0]["properties"]["reviewbot/cut"] == list(by_count.cut)
    locations = shapes()["cut_locations"]
    result = locations.document["runs"][0]["results"][0]
    assert len(result["relatedLocations"]) == 7 and len(result["codeFlows"][0]["threadFlows"][0]["locations"]) == 8
    assert len(locations.cut) == 3
    by_size = shapes()["cut_size"]
    assert 0 < by_size.results < 400 and len(base64.b64decode(encode_sarif(by_size.document))) <= 4_000
    assert "compressed upload limit" in by_size.cut[0]
    again = build_sarif(many(400), category=CATEGORY, tool_version="1.0.0", limits=Limits(gzipped_bytes=4_000))
    assert encode_sarif(again.document) == encode_sarif(by_size.document)


def test_the_upload_form_is_gzip_then_base64() -> None:
    sarif = shapes()["findings"]
    assert json.loads(gzip.decompress(base64.b64decode(encode_sarif(sarif.document)))) == sarif.document


def test_the_category_is_one_per_branch_and_keeps_the_full_audits_name() -> None:
    assert audit_category("main") != audit_category("dev")
    assert audit_category("main") == "reviewbot/audit/main/all/" and CATEGORY.endswith("/")


def test_a_partial_audit_is_not_a_clean_run() -> None:
    partial = shapes()["partial"].document["runs"][0]
    [invocation] = partial["invocations"]
    assert invocation["executionSuccessful"] is False
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "app/db.py" in note["message"]["text"]
    assert "invocations" not in shapes()["findings"].document["runs"][0]


def test_a_finding_keeps_its_identity_when_lines_move_or_the_title_is_reworded() -> None:
    code = ["def search(q):", "    cursor.execute('SELECT %s' % q)"]
    moved = ["", "", *code]
    finding = Finding(path="app/views.py", line=2, start_line=1, severity="critical", category="security",
                      title="SQL injection", body="b", confidence=0.9, cwe="89")
    shifted = finding.model_copy(update={"line": 4, "start_line": 3, "title": "Raw SQL from the request"})
    first, second = from_finding(finding, lines=code), from_finding(shifted, lines=moved)
    assert first.fingerprint == second.fingerprint == audit_fingerprint("app/views.py", "CWE-89", code)
    assert (second.start_line, second.end_line, second.cwe, second.verified) == (3, 4, "CWE-89", True)
    other = from_finding(finding.model_copy(update={"unverified": True, "suggestion": "fix"}),
                         lines=code, evidence=[Evidence("app/forms.py", 3, "source")])
    assert (other.verified, other.fix, other.evidence[0].path) == (False, "fix", "app/forms.py")
    assert AuditFinding.from_dict(json.loads(json.dumps(other.as_dict()))) == other


def test_one_alert_per_fingerprint() -> None:
    twice = [sql_injection(), sql_injection()]
    sarif = build_sarif(twice, category=CATEGORY, commit_sha=COMMIT)
    assert sarif.results == 1 and "merged" in sarif.cut[0]


def test_hostile_file_names_and_titles_cannot_make_links_in_the_message() -> None:
    hostile = AuditFinding(path="app/x](http:/evil.com).py", start_line=1, end_line=1,
                           title="[Fix now](https://evil.com/login) @security-team", cwe="CWE-79", severity="major",
                           body="<img src=x onerror=alert(1)> see http://evil.com", fingerprint="1111111111111111",
                           evidence=(Evidence("lib/[a](https:/evil.com).py", 2, "[go](javascript:alert(1))"),))
    result = build_sarif([hostile], category=CATEGORY).document["runs"][0]["results"][0]
    text = result["message"]["text"]
    assert "](http" not in text and "](javascript" not in text and "http://" not in text and "https://" not in text
    assert "@security-team" not in text
    assert text.endswith("Evidence: step [evil.com).py:2](1).")  # the one link is ours, to the related location
    related = result["relatedLocations"][0]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "lib/%5Ba%5D%28https%3A/evil.com%29.py"
    assert "](" not in related["message"]["text"]


HOSTILE_TEXTS = ["cc @security-team and @admin", "[Fix now](https://evil.example/login)", "![p](https://evil.example/p)",
                 "<img src=x onerror=alert(1)> <a href=https://evil.example>x</a>", "see www.evil.example today",
                 "write to root@evil.example", "same as other/repo#12 and other/repo@0123456789abcdef",
                 "javascript:alert(1) and mailto:a@evil.example"]


@pytest.mark.parametrize("hostile", HOSTILE_TEXTS)
def test_every_message_github_shows_is_inert_with_hostile_titles_bodies_and_file_names(hostile: str) -> None:
    name = hostile.replace(" ", "_").replace("//", "/")  # a usable file name: no empty path segment
    finding = AuditFinding(path=f"app/{name}.py", start_line=1, end_line=1, title=hostile,
                           cwe="CWE-79", severity="major", body=f"body: {hostile}", fingerprint="2222222222222222",
                           evidence=(Evidence(f"lib/{name[:20]}.py", 2, hostile),
                                     Evidence("lib/ok.py", 3, hostile)), fix=f"fix: {hostile}")
    run = build_sarif([finding], category=CATEGORY).document["runs"][0]
    [result] = run["results"]
    texts = [result["message"]["text"], *(r["message"]["text"] for r in result.get("relatedLocations", ()))]
    for text in texts:
        assert_safe_sarif_message(text)
    for rule in run["tool"]["driver"]["rules"]:
        assert_safe_for_github(rule["help"]["markdown"])
        for part in ("shortDescription", "fullDescription", "help"):
            assert_safe_sarif_message(rule[part]["text"])


def test_a_partial_runs_notifications_are_inert_text() -> None:
    why = "provider said: see https://evil.example/x, ask @admin or [here](https://evil.example) about acme/other#3"
    run = build_sarif([], category=CATEGORY, not_audited=[f"app/db.py was not audited ({why})"]).document["runs"][0]
    [note] = run["invocations"][0]["toolExecutionNotifications"]
    assert "app/db.py" in note["message"]["text"]
    assert_safe_sarif_message(note["message"]["text"])
