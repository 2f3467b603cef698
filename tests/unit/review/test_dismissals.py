"""The dismissal classifier and how remembered dismissals match later findings."""

from __future__ import annotations

import pytest

from reviewbot.review.findings.dismissals import Learning, dismissal_reason, held_back, normalise_rule


@pytest.mark.parametrize(("text", "reason"), [
    ("This is intended, callers check first.", "intended"),
    ("By design.", "intended"),
    ("won't fix", "won't fix"),
    ("Wont fix for now, tracked elsewhere", "won't fix"),
    ("False positive: we guard above.", "false positive"),
    ("Not a bug, the list is never empty", "false positive"),
])
def test_words_that_dismiss(text: str, reason: str) -> None:
    assert dismissal_reason(text) == reason


@pytest.mark.parametrize("text", [
    "Is this intended?", "This is not intended, good catch", "thanks, fixed",
    "> this is intended\nwhy do you say so", "@reviewbot why is this a bug?", "`intentional` is a variable name",
])
def test_questions_negations_and_quotes_do_not(text: str) -> None:
    assert dismissal_reason(text) is None


def test_a_thread_dismissal_matches_its_code_or_its_rule_in_the_same_file() -> None:
    learning = Learning(rule=normalise_rule("total() now divides by the item count"), code_key="ck1",
                        path="app/calc.py")
    assert held_back("ck1", "app/other.py", "Something else", [learning])
    assert held_back("ck2", "app/calc.py", "Total() now divides by the item count!", [learning])
    assert not held_back("ck2", "app/other.py", "total() now divides by the item count", [learning])


def test_a_configured_rule_matches_titles_containing_its_words_under_its_glob() -> None:
    learning = Learning(rule="item count", path="app/*.py", source="config")
    assert held_back("", "app/calc.py", "Divides by the item count", [learning])
    assert not held_back("", "lib/calc.py", "Divides by the item count", [learning])
    assert not held_back("", "app/calc.py", "Divides by zero", [learning])


def test_the_configuration_file_may_list_learnings_and_the_schema_says_so() -> None:
    from reviewbot.learnings_store import from_config
    from reviewbot.review.config import json_schema, parse_config

    loaded = parse_config("learnings:\n  - rule: Divides by the item count\n    path: 'app/*.py'\n"
                          "    reason: average\n")
    assert loaded.errors == []
    [learning] = from_config(loaded.config.learnings)
    assert (learning.rule, learning.path, learning.source) == ("divides by the item count", "app/*.py", "config")
    assert parse_config("learnings:\n  - rul: typo\n").errors  # strict: a misspelled key is an error
    assert '"learnings"' in json_schema()
