"""The proposed change to `.github/reviewbot.yml`: the team's file kept, the result valid, the evidence shown
without pinging anyone or naming findings on public repositories."""

from __future__ import annotations

import yaml

from reviewbot.learn.config_edit import add_list_item, set_mapping_entry
from reviewbot.learn.patterns import Evidence, Pattern
from reviewbot.learn.proposal import propose
from reviewbot.review.config import parse_config
from tests.gfm import assert_safe_for_github

TEAM_FILE = """# Our review settings
severity_threshold: minor   # keep nits out

learnings:
  - rule: divides by the item count
    path: app/stats.py
    reason: never empty

path_instructions:
  "migrations/**": Only look for data loss.
"""

RULE = Pattern("dismissed_rule", "maintainability", "src/legacy", "magic number in loop", 3, people=("alice", "bob"),
               evidence=(Evidence(12, "src/legacy/a.py", "alice", 1_790_000_000.0, "Magic number in loop"),
                         Evidence(14, "src/legacy/b.py", "@bob", 1_790_090_000.0, "Magic number in loop")))


def test_a_rule_joins_the_teams_learnings_and_every_line_they_wrote_stays() -> None:
    proposal = propose(RULE, TEAM_FILE, public=False)
    assert proposal is not None and proposal.branch == f"reviewbot/learn/{RULE.hash}"
    assert proposal.text.startswith(TEAM_FILE.split("\npath_instructions")[0])  # comments and order kept
    assert "# keep nits out" in proposal.text and '"migrations/**": Only look for data loss.' in proposal.text
    config = parse_config(proposal.text)
    assert config.errors == []
    assert [(r.rule, r.path) for r in config.config.learnings] == [
        ("divides by the item count", "app/stats.py"), ("magic number in loop", "src/legacy/*")]
    assert propose(RULE, proposal.text, public=False) is None  # already in the file: nothing to propose


def test_the_body_names_people_as_code_and_findings_only_on_private_repositories() -> None:
    private = propose(RULE, "", public=False)
    public = propose(RULE, "", public=True)
    assert private is not None and public is not None
    assert "`alice`" in private.body and "`@bob`" in private.body and "#12" in private.body
    assert "`Magic number in loop`" in private.body and "Magic number in loop" not in public.body
    for body in (private.body, public.body):
        assert_safe_for_github(body)


def test_a_low_resolution_category_gets_a_stricter_threshold_and_disliked_comments_an_instruction() -> None:
    low = Pattern("low_resolution", "style", count=40, fixed=2)
    proposal = propose(low, TEAM_FILE, public=True)
    assert proposal is not None
    config = parse_config(proposal.text).config
    assert config.threshold_for("style") == "major" and config.threshold_for("bug") == "minor"
    disliked = Pattern("thumbs_down", "style", "web/ui", count=3)
    proposal = propose(disliked, TEAM_FILE, public=True)
    assert proposal is not None
    assert set(parse_config(proposal.text).config.path_instructions) == {"migrations/**", "web/ui/**"}


def test_edits_of_flow_style_empty_and_unusual_files() -> None:
    assert yaml.safe_load(add_list_item("ignore: [a, b]\n", "ignore", "c") or "") == {"ignore": ["a", "b", "c"]}
    assert yaml.safe_load(add_list_item("", "ignore", "c") or "") == {"ignore": ["c"]}
    unindented = "learnings:\n- rule: one two three\n# trailing note\nmax_comments: 5\n"
    edited = add_list_item(unindented, "learnings", {"rule": "four five six"})
    assert edited is not None and yaml.safe_load(edited)["max_comments"] == 5
    assert [r["rule"] for r in yaml.safe_load(edited)["learnings"]] == ["one two three", "four five six"]
    assert "# trailing note" in edited
    assert yaml.safe_load(add_list_item("ignore:\nmax_comments: 5\n", "ignore", "x") or "") == {
        "ignore": ["x"], "max_comments": 5}  # an empty key
    assert add_list_item("", "learnings", "x") is None  # the result would not validate: no edit
    assert set_mapping_entry("path_instructions:\n  a/**: x\n", "path_instructions", "a/**", "y") is None
    assert add_list_item("- not a mapping\n", "ignore", "c") is None
    assert add_list_item("ignore: &x\n  - a\nother: *x\n", "ignore", "c") is None  # an alias: no safe text edit
    crlf = add_list_item("ignore:\r\n  - a\r\n", "ignore", "b")
    assert crlf == "ignore:\r\n  - a\r\n  - b\r\n"
