"""Publishing decisions (pure): anchoring, snapping, suggestions, fingerprints, caps, conclusions, config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewbot.model import Usage
from reviewbot.review.config import RepoConfig, json_schema, parse_config
from reviewbot.review.diff.parse import parse_diff
from reviewbot.review.findings.anchoring import anchor
from reviewbot.review.findings.fingerprints import (
    anchored_code,
    code_key,
    fingerprint,
    read_marker,
    read_review_marker,
)
from reviewbot.review.findings.schema import Finding
from reviewbot.review.publish.markdown import Links, ReviewReport
from reviewbot.review.publish.posting import Existing, plan, without_inline
from reviewbot.review.publish.suggestions import applies

DIFF = parse_diff((Path(__file__).parents[2] / "fixtures" / "diffs" / "mixed.diff").read_text())
KEY = b"server-side marker key"
HEAD_CALC = ["def total(items):", "    result = 0", "    for i in items:", "        result += i.price * i.qty",
             "    return result", "", "", "def average(items):", "    return total(items) / len(items)"]


def make(**kw: object) -> Finding:
    base: dict[str, object] = {"path": "app/calc.py", "line": 4, "side": "RIGHT", "severity": "major",
                               "category": "bug", "title": "Quantity", "body": "b", "confidence": 0.8}
    return Finding.model_validate(base | kw)


def report_for(*findings: Finding) -> ReviewReport:
    return ReviewReport(summary="s", placement=anchor(list(findings), DIFF), usage=Usage(), model="m",
                        files_reviewed=3)


def test_a_finding_just_outside_a_hunk_snaps_with_a_note_far_ones_go_outside() -> None:
    near, far = make(line=12, title="near"), make(line=16, title="far")
    placed = anchor([near, far], DIFF)
    [snapped] = placed.inline
    assert (snapped.line, snapped.snapped_from) == (9, 12)
    assert [f.title for f in placed.outside] == ["far"]
    payload = plan(report_for(near), DIFF, head_sha="h", key=KEY, config=RepoConfig()).payload
    assert "line 12, just outside the changed lines" in payload["comments"][0]["body"]


def test_anchoring_on_renamed_and_deleted_files() -> None:
    renamed = make(path="docs/new.md", line=2, title="renamed")
    deleted = make(path="app/gone.py", line=2, side="LEFT", title="deleted")
    placed = anchor([renamed, deleted], DIFF)
    assert {(a.finding.path, a.finding.side, a.line) for a in placed.inline} == {
        ("docs/new.md", "RIGHT", 2), ("app/gone.py", "LEFT", 2)}


def test_suggestions_only_when_they_replace_exactly_the_commented_lines() -> None:
    assert applies("        result += i.price * i.quantity", HEAD_CALC, 4, 4)
    assert not applies("        result += i.price * i.qty", HEAD_CALC, 4, 4)  # no change
    assert not applies("    for i in items:\n        result += i.cost", HEAD_CALC, 4, 4)  # repeats line 3
    assert not applies("x", HEAD_CALC, 40, 40)  # past the end
    assert not applies("x", None, 4, 4)  # head unknown
    good = make(suggestion="        result += i.price * i.quantity")
    context = make(line=5, suggestion="    return result\n", title="noop")
    payload = plan(report_for(good, context), DIFF, head_sha="h", key=KEY, config=RepoConfig(),
                   head_files={"app/calc.py": HEAD_CALC}).payload
    bodies = {c["line"]: c["body"] for c in payload["comments"]}
    assert "```suggestion" in bodies[4] and "```suggestion" not in bodies[5] and "```\n" in bodies[5]


def test_fingerprints_survive_line_shifts_and_rewording() -> None:
    code = anchored_code(DIFF.file("app/calc.py"), "RIGHT", 4, 4)
    assert code == ["        result += i.price * i.qty"]
    shifted = ["    " + code[0].strip() + "  "]  # re-indented, same code, now at another line
    assert fingerprint("app/calc.py", "bug", code, "Quantity ignored!") == \
        fingerprint("app/calc.py", "bug", shifted, "quantity  IGNORED")
    assert fingerprint("app/calc.py", "bug", code, "a") != fingerprint("app/calc.py", "bug", code, "b")
    assert code_key("app/calc.py", "bug", code) == code_key("app/calc.py", "bug", shifted)


def test_open_findings_are_not_repeated_and_the_body_says_so() -> None:
    first = plan(report_for(make()), DIFF, head_sha="h1", config=RepoConfig(), key=KEY)
    keys = read_marker(first.payload["comments"][0]["body"], KEY)
    assert keys is not None
    again = plan(report_for(make(title="Reworded title")), DIFF, head_sha="h2", key=KEY, config=RepoConfig(),
                 existing=Existing(frozenset({keys[0]}), frozenset({keys[1]})))
    assert again.payload["comments"] == []
    assert "1 finding(s) already open" in again.payload["body"]


def test_the_cap_keeps_the_most_severe_and_lists_the_rest() -> None:
    findings = [make(line=n, severity=s, title=f"t{n}") for n, s in ((2, "nit"), (3, "critical"), (4, "minor"))]
    publication = plan(report_for(*findings), DIFF, head_sha="h", key=KEY, config=RepoConfig(max_comments=1))
    assert [c["line"] for c in publication.payload["comments"]] == [3]
    assert "#### More findings" in publication.payload["body"] and "t4" in publication.payload["body"]
    assert "t2" not in publication.payload["body"]  # a nit: below the default threshold


def test_incremental_comments_only_on_lines_the_push_changed() -> None:
    publication = plan(report_for(make(line=2, title="old"), make(line=4, title="new")), DIFF, head_sha="h", key=KEY,
                       config=RepoConfig(), changed_lines={"app/calc.py": {4}})
    assert [c["line"] for c in publication.payload["comments"]] == [4]
    assert "1 finding(s) on code reviewed before" in publication.payload["body"]


def test_threshold_outside_links_and_review_marker() -> None:
    findings = [make(severity="nit", title="tiny"), make(line=40, title="elsewhere")]
    links = Links(head="https://github.com/acme/widgets/blob/h")
    publication = plan(report_for(*findings), DIFF, head_sha="h", key=KEY,
                       config=RepoConfig(severity_threshold="minor"), links=links, run_id="guid-1")
    body = publication.payload["body"]
    assert "tiny" not in body and "1 finding(s) below the severity threshold" in body
    assert "(https://github.com/acme/widgets/blob/h/app/calc.py#L40)" in body
    assert read_review_marker(body, KEY) == {"sha": "h", "run": "guid-1", "fps": []}
    assert read_review_marker(body, b"another server") is None


def test_a_category_threshold_holds_back_that_category_only() -> None:
    findings = [make(severity="minor", category="style", title="Style nit"),
                make(line=2, severity="minor", title="Minor bug"), make(line=40, severity="major", category="style",
                                                                      title="Major style")]
    config = RepoConfig.model_validate({"severity_thresholds": {"style": "major"}})
    publication = plan(report_for(*findings), DIFF, head_sha="h", key=KEY, config=config)
    body = publication.payload["body"]
    posted = [c["body"] for c in publication.payload["comments"]]
    assert any("Minor bug" in c for c in posted) and "Major style" in body + "".join(posted)
    assert "Style nit" not in body + "".join(posted) and "1 finding(s) below the severity threshold" in body


@pytest.mark.parametrize(("blocking", "severity", "conclusion"), [
    (None, "minor", "success"), (None, "major", "neutral"), ("major", "major", "failure"),
    ("critical", "major", "success")])
def test_conclusion_policy(blocking: str | None, severity: str, conclusion: str) -> None:
    config = RepoConfig.model_validate({"blocking_severity": blocking})
    publication = plan(report_for(make(severity=severity)), DIFF, head_sha="h", key=KEY, config=config)
    assert publication.conclusion == conclusion


def test_annotations_mirror_right_side_findings() -> None:
    publication = plan(report_for(make(severity="critical"), make(path="app/gone.py", line=1, side="LEFT")), DIFF,
                       head_sha="h", key=KEY, config=RepoConfig())
    assert publication.annotations == [{"path": "app/calc.py", "start_line": 4, "end_line": 4,
                                        "annotation_level": "failure", "title": "Quantity", "message": "b"}]


def test_an_annotation_message_fits_githubs_64_kb_in_bytes_not_characters() -> None:
    # 60,000 characters of CJK text are 180,000 bytes: GitHub would refuse the whole check run update.
    body = "数据" * 30_000 + "!"
    [annotation] = plan(report_for(make(body=body)), DIFF, head_sha="h", key=KEY, config=RepoConfig()).annotations
    message = annotation["message"]
    assert 63_000 < len(message.encode()) <= 64_000 and body.startswith(message)
    [short] = plan(report_for(make(body="ünïcode")), DIFF, head_sha="h", key=KEY, config=RepoConfig()).annotations
    assert short["message"] == "ünïcode"


def test_the_422_fallback_moves_comments_into_the_body() -> None:
    payload = plan(report_for(make()), DIFF, head_sha="h", key=KEY, config=RepoConfig()).payload
    fallback = without_inline(payload, "GitHub answered 422")
    assert fallback["comments"] == [] and "`app/calc.py` line 4" in fallback["body"]
    assert read_review_marker(fallback["body"], KEY) == read_review_marker(payload["body"], KEY) is not None


def test_config_errors_drop_only_the_key_at_fault_and_name_it() -> None:
    loaded = parse_config("max_comments: lots\nauto_review: {drafts: true}\n")
    assert loaded.config == RepoConfig(auto_review={"drafts": True}) and "`max_comments`" in loaded.errors[0]
    assert "not valid YAML" in parse_config("key: [unclosed").errors[0]
    assert parse_config("max_coments: 3").errors == [
        ".github/reviewbot.yml line 1: `max_coments` is not a key (did you mean `max_comments`?), given 3; ignored, "
        "the file's other keys apply"]
    # A key the organisation's defaults got wrong cannot be dropped from the file: the defaults apply, as before.
    assert parse_config("max_comments: 3", defaults={"passes": 9}).config == RepoConfig()


def test_org_defaults_are_overridden_by_the_repository() -> None:
    org = {"max_comments": 3, "auto_review": {"drafts": True, "on_push": False}}
    merged = parse_config("auto_review:\n  on_push: true\n", defaults=org).config
    assert merged.max_comments == 3 and merged.auto_review.drafts and merged.auto_review.on_push


def test_the_published_schema_describes_every_key() -> None:
    schema = json.loads(json_schema())
    assert set(schema["properties"]) == set(RepoConfig.model_fields)
    assert schema["additionalProperties"] is False
