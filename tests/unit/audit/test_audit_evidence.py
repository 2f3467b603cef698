"""An audit finding's evidence lines: asked for by the audit (never by a review), checked against the audited tree
(model output is untrusted), ordered source → sink, and shown inert in SARIF, the report and the tracking issue."""

from __future__ import annotations

import json

import pytest

from reviewbot.audit.answer_schema import AUDIT_FORMATS, AUDIT_SCHEMA, MAX_EVIDENCE
from reviewbot.audit.chunkprompt import AUDIT_SYSTEM
from reviewbot.audit.evidence import MAX_NOTE, EvidenceCheck, with_callers
from reviewbot.audit.findings import AuditFinding, Evidence, evidence_of, from_finding
from reviewbot.audit.planner import facts, parsed_definitions
from reviewbot.audit.report import markdown
from reviewbot.audit.sarif import build_sarif
from reviewbot.audit.tracking import tracking_body
from reviewbot.inference.structured import RESPONSE_FORMATS
from reviewbot.review.findings.schema import REVIEW_SCHEMA, Finding, parse_review_output
from reviewbot.review.prompt.sections import SYSTEM_PROMPT
from tests.gfm import assert_safe_for_github, assert_safe_sarif_message
from tests.sarif_shapes import CATEGORY, COMMIT, many, shapes

FILES = {"app/views.py": "import db\n\n\ndef search(request):\n    q = request.GET['q']\n    return db.find(q)\n",
         "app/db.py": "def find(q):\n    return conn.execute(f\"SELECT * FROM t WHERE name = '{q}'\")\n",
         "README.md": "# demo\n"}
SINK = {"path": "app/db.py", "line": 2, "start_line": None, "side": "RIGHT", "severity": "critical",
        "category": "security", "title": "Search term formatted into SQL", "body": "Use a parameter.",
        "suggestion": None, "confidence": 0.9, "cwe": "CWE-89"}


def answer(*evidence: object) -> Finding:
    [finding] = parse_review_output(json.dumps({"summary": "", "findings": [{**SINK, "evidence": list(evidence)}]}))\
        .findings
    return finding


def step(path: str, line: int, role: str = "step", note: str = "") -> dict[str, object]:
    return {"path": path, "line": line, "role": role, "note": note}


def test_the_audit_asks_for_evidence_and_the_review_does_not() -> None:
    assert "evidence" in AUDIT_SYSTEM and json.dumps(AUDIT_SCHEMA, sort_keys=True, separators=(",", ":")) \
        in AUDIT_SYSTEM
    items = AUDIT_SCHEMA["properties"]["findings"]["items"]["properties"]["evidence"]
    assert items["maxItems"] == MAX_EVIDENCE and items["items"]["properties"]["role"]["enum"] == \
        ["source", "step", "sink"]
    assert AUDIT_FORMATS[0]["json_schema"]["schema"] is AUDIT_SCHEMA and AUDIT_FORMATS[0]["json_schema"]["strict"]
    # The pull-request review: its prompt, its schema and its request's response_format say nothing of evidence.
    assert "evidence" not in SYSTEM_PROMPT and "evidence" not in json.dumps(REVIEW_SCHEMA)
    assert "evidence" not in json.dumps(RESPONSE_FORMATS) and RESPONSE_FORMATS[0]["json_schema"]["name"] == "review"
    # Audits do not ask for a walkthrough or linked issues: less to send with every chunk, less to answer.
    assert set(AUDIT_SCHEMA["properties"]) == {"summary", "findings"}
    assert len(json.dumps(AUDIT_SCHEMA)) < len(json.dumps(REVIEW_SCHEMA)) + 100


def test_a_review_finding_without_evidence_dumps_as_it_did() -> None:
    finding = Finding.model_validate(SINK)
    assert "evidence" not in finding.model_dump() and finding.evidence == ()
    assert "evidence" in answer(step("app/views.py", 5, "source")).model_dump()


def test_malformed_evidence_never_costs_a_repair_turn_and_is_counted_when_dropped() -> None:
    finding = answer("app/views.py:5", {"path": "app/views.py", "line": "five"}, {"role": "origin"}, 7,
                     step("app/views.py", 5, "source"))
    assert len(finding.evidence) == 5  # the answer is valid: four unusable items are kept empty, to be counted
    check = EvidenceCheck(FILES.get, FILES)
    assert [(e.path, e.line) for e in check(finding).evidence] == [("app/views.py", 5)] and check.dropped == 4


@pytest.mark.parametrize("path,line", [("../etc/passwd", 1), ("/etc/passwd", 1), ("https://evil.example/x.py", 1),
                                       ("app/views.py", 7), ("app/views.py", 0), ("app/nope.py", 1),
                                       ("app//views.py", 1), ("app/./views.py", 1), ("C:/app/views.py", 1)])
def test_evidence_outside_the_tree_or_past_a_files_end_is_dropped(path: str, line: int) -> None:
    check = EvidenceCheck(FILES.get, FILES)
    kept = check(answer(step(path, line, "source"), step("./app/views.py", 6, "step")))
    assert [(e.path, e.line) for e in kept.evidence] == [("app/views.py", 6)] and check.dropped == 1


def test_repeated_and_surplus_lines_are_dropped_and_notes_are_one_plain_line() -> None:
    lines = "\n".join(f"x{i} = 1" for i in range(20)) + "\n"
    files = {"app/db.py": FILES["app/db.py"], "app/many.py": lines}
    check = EvidenceCheck(files.get, files)
    note = "see [this](https://evil.example) @admin\n\n**now** " + "x" * 400
    kept = check(answer(step("app/many.py", 20), step("app/many.py", 20),
                        *(step("app/many.py", i, note=note) for i in range(1, 10))))
    assert len(kept.evidence) == MAX_EVIDENCE and check.dropped == 11 - MAX_EVIDENCE
    assert [e.line for e in kept.evidence] == [20, 1, 2, 3, 4, 5]
    note_kept = kept.evidence[1].note
    assert "\n" not in note_kept and "@admin" not in note_kept and len(note_kept) <= MAX_NOTE
    assert check(Finding.model_validate(SINK)) == Finding.model_validate(SINK) and check.dropped == 11 - MAX_EVIDENCE


def test_evidence_runs_from_source_to_sink_the_models_first_and_each_line_once() -> None:
    finding = answer(step("app/db.py", 2, "sink", "executed"), step("app/views.py", 6, "step", "passed on"),
                     step("app/views.py", 5, "source", "read from the query string"))
    callers = [Evidence("app/views.py", 6, "calls find"), Evidence("app/api.py", 3, "calls find")]
    ordered = evidence_of(finding, callers)
    assert [(e.role, e.path, e.line) for e in ordered] == [
        ("source", "app/views.py", 5), ("step", "app/views.py", 6), ("step", "app/api.py", 3),
        ("sink", "app/db.py", 2)]
    assert ordered[1].note == "passed on"  # the model's note wins over the other source's for the same line
    assert from_finding(finding, lines=FILES["app/db.py"].split("\n")).evidence == evidence_of(finding)


def test_a_sink_the_model_names_elsewhere_ends_the_code_flow_and_the_finding_stays_primary() -> None:
    result = shapes()["evidence"].document["runs"][0]["results"][1]
    assert result["ruleId"] == "reviewbot/cwe-22"
    primary = result["locations"][0]["physicalLocation"]
    assert (primary["artifactLocation"]["uri"], primary["region"]["startLine"]) == ("app/upload.py", 20)
    related = [(r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"]["startLine"],
                r["message"]["text"]) for r in result["relatedLocations"]]
    assert related == [("app/storage.py", 8, "step: joined to MEDIA_ROOT"),
                       ("app/storage.py", 9, "sink: opened for writing")]  # the source is the primary location
    flow = [(s["location"]["physicalLocation"]["artifactLocation"]["uri"],
             s["location"]["physicalLocation"]["region"]["startLine"])
            for s in result["codeFlows"][0]["threadFlows"][0]["locations"]]
    assert flow == [("app/upload.py", 20), ("app/storage.py", 8), ("app/storage.py", 9)]
    assert "step [storage.py:8](1), sink [storage.py:9](2)" in result["message"]["text"]
    # Without a sink from the model, the finding's own lines close the flow, as they did.
    sql = shapes()["evidence"].document["runs"][0]["results"][0]
    assert sql["codeFlows"][0]["threadFlows"][0]["locations"][-1]["location"]["message"]["text"] == "sink"


HOSTILE = ["cc @security-team", "[Fix now](https://evil.example/login)", "![p](https://evil.example/p.png)",
           "<img src=x onerror=alert(1)>", "see www.evil.example", "mail root@evil.example", "other/repo#12",
           "`` @team ``` `x", "**bold** _it_ # heading"]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_notes_are_inert_in_sarif_the_report_and_the_issue(hostile: str) -> None:
    check = EvidenceCheck(FILES.get, FILES)
    finding = check(answer(step("app/views.py", 5, "source", hostile), step("app/db.py", 2, "sink", hostile)))
    published = from_finding(finding, lines=FILES["app/db.py"].split("\n"))
    result = build_sarif([published], category=CATEGORY, commit_sha=COMMIT).document["runs"][0]["results"][0]
    for text in [result["message"]["text"], *(r["message"]["text"] for r in result["relatedLocations"]),
                 *(s["location"]["message"]["text"] for s in result["codeFlows"][0]["threadFlows"][0]["locations"])]:
        assert_safe_sarif_message(text)
    state = {"root": "/src", "directory": "", "chunks": [{"index": 0, "paths": ["app/db.py"], "tokens": 1}],
             "done": {"0": {"candidates": [], "evidence_dropped": 2, "usage": {}}},
             "merged": {"unchecked_kept": [finding.model_dump()]}}
    report = markdown(state)
    assert_safe_for_github(report, repo="owner/repo")
    assert "- source `app/views.py:5`: " in report and "- sink `app/db.py:2`: " in report
    assert "2 evidence line(s) the model gave were left out" in report
    body, _ = tracking_body([published], category=CATEGORY, commit_sha=COMMIT, cost_usd=0.5, reason="r",
                            remembered=None, key=b"k")
    assert_safe_for_github(body, repo="owner/repo")
    assert "Evidence: source `app/views.py:5` → sink `app/db.py:2`." in body


def test_the_issue_with_evidence_on_every_finding_stays_under_githubs_limit() -> None:
    body, _ = tracking_body(many(5_000, evidence=MAX_EVIDENCE), category=CATEGORY, commit_sha=COMMIT, cost_usd=9.0,
                            reason="r", remembered={"reviewbot/audit/old/all/": [f"{i:016x}" for i in range(3_000)]},
                            key=b"k")
    assert len(body) < 65_536 and "Evidence: step `lib/e0.py:1` → step `lib/e1.py:2`" in body


def test_the_call_graphs_callers_follow_the_models_evidence_once_each() -> None:
    texts = {**FILES, "app/api.py": "from app import db\n\n\ndef lookup(name):\n    return db.find(name)\n",
             "app/other.py": "def unrelated():\n    return 1\n"}
    definitions, graph, _, _ = facts(texts, parsed_definitions)
    finding = answer(step("app/views.py", 6, "source", "the query string"))  # views.py calls find on line 6
    merged = with_callers(finding, graph, definitions, texts.get)
    assert [(e.path, e.line, e.role, e.note) for e in merged.evidence] == [
        ("app/views.py", 6, "source", "the query string"), ("app/api.py", 5, "step", "calls find")]
    ordered = from_finding(merged, lines=texts["app/db.py"].split("\n")).evidence
    assert [(e.role, e.path) for e in ordered] == [("source", "app/views.py"), ("step", "app/api.py")]
    outside = Finding.model_validate({**SINK, "path": "app/other.py", "line": 2})
    assert with_callers(outside, graph, definitions, texts.get) == outside  # nobody calls it: nothing to add


def test_a_finding_anchored_where_the_input_enters_is_not_also_the_flows_sink() -> None:
    source = AuditFinding(path="app/views.py", start_line=5, end_line=5, title="Name reaches SQL", cwe="CWE-89",
                          severity="critical", body="b", fingerprint="4444444444444444",
                          evidence=(Evidence("app/views.py", 5, "read here", "source"),
                                    Evidence("app/db.py", 2, "formatted into SQL")))
    [result] = build_sarif([source], category=CATEGORY).document["runs"][0]["results"]
    flow = [(s["location"]["physicalLocation"]["artifactLocation"]["uri"], s["location"]["message"]["text"])
            for s in result["codeFlows"][0]["threadFlows"][0]["locations"]]
    assert flow == [("app/views.py", "source: read here"), ("app/db.py", "step: formatted into SQL")]
    assert [r["physicalLocation"]["artifactLocation"]["uri"] for r in result["relatedLocations"]] == ["app/db.py"]


def test_a_grammar_constrained_server_is_not_made_to_write_evidence() -> None:
    grammar = AUDIT_FORMATS[2]["schema"]["properties"]["findings"]["items"]
    assert "evidence" in grammar["properties"] and "evidence" not in grammar["required"]
    assert "maxItems" not in grammar["properties"]["evidence"]  # bounds cost a grammar one rule per item
