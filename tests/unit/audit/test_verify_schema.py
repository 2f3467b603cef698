"""The audit's verdicts: "needs_code" added beside the review's verdicts, whose schema and wording stay the same
bytes; an answer written without `needs` still parses; a candidate left at "needs_code" is kept, never refuted."""

from __future__ import annotations

import json

from reviewbot.audit.verify_schema import AUDIT_INSTRUCTIONS, AUDIT_VERIFY_SCHEMA
from reviewbot.review.findings.schema import Finding
from reviewbot.review.findings.verification import VERIFY_SCHEMA, apply_verdicts, parse_verdicts

# The review's verification schema as every earlier version sent it (its memos and prefix caches rely on it).
REVIEW_SCHEMA_BYTES = (
    '{"additionalProperties":false,"properties":{"verdicts":{"items":{"additionalProperties":false,"properties":'
    '{"id":{"minimum":1,"type":"integer"},"reason":{"type":"string"},"severity":{"enum":["critical","major",'
    '"minor","nit",null],"type":["string","null"]},"verdict":{"enum":["confirm","refute","downgrade"],'
    '"type":"string"}},"required":["id","verdict","severity","reason"],"type":"object"},"type":"array"}},'
    '"required":["verdicts"],"type":"object"}')


def test_the_review_schema_is_unchanged_and_the_audit_s_adds_needs_code_and_needs() -> None:
    assert json.dumps(VERIFY_SCHEMA, sort_keys=True, separators=(",", ":")) == REVIEW_SCHEMA_BYTES
    item = AUDIT_VERIFY_SCHEMA["properties"]["verdicts"]["items"]
    assert item["properties"]["verdict"]["enum"] == ["confirm", "refute", "downgrade", "needs_code"]
    assert item["required"] == ["id", "verdict", "severity", "reason", "needs"]
    assert '"needs_code"' in AUDIT_INSTRUCTIONS and "when you cannot confirm a finding, refute it" not in \
        AUDIT_INSTRUCTIONS


def test_verdicts_without_needs_still_parse_and_needs_code_keeps_the_candidate_unverified() -> None:
    text = json.dumps({"verdicts": [{"id": 1, "verdict": "confirm", "severity": None, "reason": "ok"},
                                    {"id": 2, "verdict": "needs_code", "severity": None, "reason": "no sink",
                                     "needs": ["db/helpers.py", "run_query"]}]})
    first, second = parse_verdicts(text, [1, 2])
    assert first.needs == () and second.needs == ("db/helpers.py", "run_query")
    findings = [Finding.model_validate({"path": "a.py", "line": n, "severity": "major", "category": "security",
                                        "title": f"T{n}", "body": "b", "confidence": 0.5}) for n in (1, 2)]
    kept, checks = apply_verdicts(findings, [first, second])
    assert [(f.title, f.unverified) for f in kept] == [("T1", False), ("T2", True)] and checks.dropped == ()
