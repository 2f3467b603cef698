"""Model output validation and anchoring findings on lines GitHub accepts."""

import json
from pathlib import Path

import pytest

from reviewbot.review.diff.parse import parse_diff
from reviewbot.review.findings.anchoring import anchor
from reviewbot.review.findings.schema import Finding, OutputInvalid, parse_review_output

DIFF = parse_diff((Path(__file__).parents[2] / "fixtures" / "diffs" / "mixed.diff").read_text())


def finding(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {"path": "app/calc.py", "line": 4, "start_line": None, "side": "RIGHT",
                               "severity": "major", "category": "bug", "title": "Quantity ignored",
                               "body": "Explain.", "suggestion": None, "confidence": 0.9}
    return base | overrides


def test_bare_fenced_and_prose_wrapped_json_are_accepted() -> None:
    doc = json.dumps({"summary": "ok", "findings": [finding()]})
    for text in (doc, f"```json\n{doc}\n```", f"Here is my review:\n{doc}\nThanks"):
        out = parse_review_output(text)
        assert out.summary == "ok" and out.findings[0].line == 4


def test_a_raw_newline_inside_a_string_is_read_as_the_newline_it_means() -> None:
    """What Gemma 3 270M wrote through llama.cpp's JSON grammar, which lets control characters into strings."""
    text = '{"summary": "},\nDescription:\n\nI changed total" ,"findings" : [ ], "issues" : [] }'
    with pytest.raises(ValueError):
        json.loads(text)  # raw newlines, which strict JSON refuses
    assert parse_review_output(text).summary == "},\nDescription:\n\nI changed total"


def test_invalid_output_explains_what_is_wrong() -> None:
    with pytest.raises(OutputInvalid, match="not valid JSON"):
        parse_review_output("I think the code is fine")
    with pytest.raises(OutputInvalid, match="severity"):
        parse_review_output(json.dumps({"summary": "", "findings": [finding(severity="blocker")]}))
    with pytest.raises(OutputInvalid, match="empty"):
        parse_review_output("   ")
    with pytest.raises(OutputInvalid, match="confidence"):
        parse_review_output(json.dumps({"summary": "", "findings": [finding(confidence=3)]}))


def test_findings_on_diff_lines_are_inline_others_go_outside() -> None:
    findings = [Finding.model_validate(f) for f in (
        finding(line=4),                                   # added line
        finding(line=15, title="Far from any hunk"),       # not in a hunk
        finding(path="app/other.py", title="Not in PR"),   # file not in the diff
        finding(path="app/gone.py", line=1, side="LEFT"),  # removed file, old side
        finding(path="app/gone.py", line=1, side="RIGHT", title="No new side"),
    )]
    placed = anchor(findings, DIFF)
    assert [(a.finding.path, a.line, a.finding.side) for a in placed.inline] == [
        ("app/calc.py", 4, "RIGHT"), ("app/gone.py", 1, "LEFT")]
    assert {f.title for f in placed.outside} == {"Far from any hunk", "Not in PR", "No new side"}


def test_multi_line_ranges_must_stay_in_one_hunk() -> None:
    ok, across, backwards = (Finding.model_validate(f) for f in (
        finding(start_line=2, line=5), finding(start_line=5, line=24, title="across"),
        finding(start_line=6, line=5, title="backwards")))
    placed = {a.finding.title: a for a in anchor([ok, across, backwards], DIFF).inline}
    assert placed["Quantity ignored"].start_line == 2
    assert placed["across"].start_line is None and placed["across"].line == 24
    assert placed["backwards"].start_line is None


def test_inline_comments_are_ordered_by_severity_then_confidence() -> None:
    findings = [Finding.model_validate(finding(severity=s, confidence=c, title=t)) for s, c, t in (
        ("nit", 0.99, "nit"), ("critical", 0.5, "crit"), ("major", 0.6, "major-low"), ("major", 0.9, "major-hi"))]
    assert [a.finding.title for a in anchor(findings, DIFF).inline] == ["crit", "major-hi", "major-low", "nit"]
