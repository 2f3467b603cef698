"""A finding's outcome at close, decided from what GitHub shows, and the `Reviewbot-Fix:` trailers."""

from __future__ import annotations

import dataclasses

import pytest

from reviewbot.outcomes.classify import ThreadState, at_close, fix_trailers
from reviewbot.outcomes.records import FindingRecord

BOT = "reviewbot[bot]"
RECORD = FindingRecord(installation=1, repo="acme/app", pr=7, fingerprint="a" * 16, category="bug",
                       severity="major", path="app/calc.py", line=5, posted_at=100.0)


def thread(resolved: bool = False, by: str = "", up: int = 0, down: int = 0) -> ThreadState:
    return ThreadState(comment_id=11, is_resolved=resolved, resolved_by=by, thumbs_up=up, thumbs_down=down)


@pytest.mark.parametrize(("state", "merged", "outcome", "by"), [
    (thread(), True, "open_at_merge", ""),
    (thread(), False, "open_at_close", ""),
    (None, True, "open_at_merge", ""),  # the thread is gone (deleted comment): still counted, as open
    (thread(resolved=True, by="maintainer-mo"), True, "resolved", "maintainer-mo"),
    (thread(resolved=True, by=BOT), True, "fixed", BOT),  # the App resolves its thread when the code changed
    (thread(resolved=True, by="other-app[bot]"), False, "resolved", "other-app[bot]"),  # not the App: no fix
    (thread(resolved=True), True, "open_at_merge", ""),  # resolved, but GitHub does not say by whom
], ids=["open-merged", "open-closed", "no-thread", "person", "app", "another-bot", "unknown-resolver"])
def test_an_undecided_finding_gets_its_outcome_at_close(state: ThreadState | None, merged: bool, outcome: str,
                                                        by: str) -> None:
    closed = at_close(RECORD, state, merged=merged, fixes=set(), bot=BOT, now=200.0)
    assert (closed.outcome, closed.by, closed.closed_at) == (outcome, by, 200.0)


def test_a_merged_fix_commit_is_a_fix_whatever_the_thread_shows() -> None:
    closed = at_close(RECORD, thread(resolved=True, by="maintainer-mo"), merged=True, fixes={RECORD.fingerprint},
                      bot=BOT, now=200.0)
    assert (closed.outcome, closed.by) == ("fixed", "fix commit")
    unmerged = at_close(RECORD, thread(), merged=False, fixes={RECORD.fingerprint}, bot=BOT, now=200.0)
    assert unmerged.outcome == "open_at_close"  # the fix never landed


@pytest.mark.parametrize("earlier", ["fixed", "dismissed"])
def test_a_fix_or_a_dismissal_before_close_stands_and_reactions_are_read(earlier: str) -> None:
    record = dataclasses.replace(RECORD, outcome=earlier, by="lead-lu", decided_at=150.0, scope="repository")
    closed = at_close(record, thread(resolved=True, by="maintainer-mo", up=2, down=1), merged=True, fixes=set(),
                      bot=BOT, now=200.0)
    assert (closed.outcome, closed.by, closed.decided_at, closed.scope) == (earlier, "lead-lu", 150.0, "repository")
    assert (closed.thumbs_up, closed.thumbs_down, closed.comment_id) == (2, 1, 11)


def test_fix_trailers_are_read_from_the_last_paragraph_only() -> None:
    messages = [
        "Guard the division\n\nBody text.\n\nReviewbot-Fix: 0123456789abcdef\nSigned-off-by: A <a@example.com>",
        "Two at once\n\nreviewbot-fix: 1111111111111111, 2222222222222222",
        "Reviewbot-Fix: 3333333333333333",  # a subject line is no trailer
        "Mentioned in prose\n\nReviewbot-Fix: 4444444444444444\n\nThe end.",  # not the last paragraph
        "Spaced token\n\nReviewbot Fix: 5555555555555555",
        "Odd value\n\nReviewbot-Fix: <script>",
    ]
    assert fix_trailers(messages) == {"0123456789abcdef", "1111111111111111", "2222222222222222"}


def test_a_record_survives_json_and_a_damaged_value_is_none() -> None:
    record = dataclasses.replace(RECORD, cwe="CWE-89", outcome="dismissed", scope="pull request")
    assert FindingRecord.from_json(record.to_json()) == record
    assert FindingRecord.from_json(b"not json") is None and FindingRecord.from_json("[1]") is None
    assert FindingRecord.from_json('{"repo": "acme/app"}') is None  # required fields missing


def test_closing_again_keeps_the_first_decision_and_time() -> None:
    first = at_close(RECORD, thread(), merged=True, fixes=set(), bot=BOT, now=200.0)
    again = at_close(first, thread(up=1), merged=True, fixes=set(), bot=BOT, now=300.0)
    assert (again.outcome, again.decided_at, again.closed_at, again.thumbs_up) == ("open_at_merge", 200.0, 200.0, 1)
