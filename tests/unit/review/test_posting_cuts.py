"""Long texts cut for GitHub's size limit and code decided as GitHub decides it: no span left open, no live ping."""

from __future__ import annotations

import pytest

from reviewbot.model import Usage
from reviewbot.review.findings.anchoring import Placement
from reviewbot.review.findings.schema import FileNote
from reviewbot.review.prompt.thread import answer_body
from reviewbot.review.publish.cutting import bounded
from reviewbot.review.publish.markdown import MAX_BODY, ReviewReport, neutralize, neutralize_inline, review_body
from reviewbot.review.publish.posting import without_inline
from reviewbot.review.publish.safemd import LinkPolicy
from tests.gfm import github_problems, render

REPO = LinkPolicy("https://github.com/o/r")
SPAN = "`@org/security-team see https://evil.example/x and ![p](https://evil.example/p.png)`"


def straddling(limit: int, before: int = 20) -> str:
    """Model text whose code span starts `before` characters ahead of where a plain cut at `limit` falls."""
    prose = ("word " * (limit // 5 + 1))[:limit - before]
    return prose + SPAN + " and more prose after it. " * 40


def live(markdown: str) -> list[str]:
    """What GitHub would make live: mentions outside code, foreign links and images, raw HTML."""
    return github_problems(markdown, repo="o/r")


def test_a_thread_answer_cut_at_the_limit_never_leaves_a_code_span_open() -> None:
    for before in (1, 10, 40, 70):
        body = answer_body(straddling(60_000, before))
        assert live(body) == [], before
        assert len(body) <= 60_100 and body.endswith("…(truncated)")


def summary_report(summary: str) -> ReviewReport:
    return ReviewReport(summary=summary, placement=Placement((), ()), usage=Usage(), model="m", files_reviewed=1)


def test_a_review_summary_cut_at_the_limit_never_leaves_a_code_span_open() -> None:
    header = review_body(summary_report("MARK")).index("MARK")  # the summary comes after the headline
    body = review_body(summary_report(straddling(MAX_BODY - header, 30)))
    assert live(body) == [] and "…(truncated)" in body


def test_a_walkthrough_cell_cut_at_300_characters_never_leaves_a_code_span_open() -> None:
    note = FileNote(path="a.py", summary=straddling(300, 12))
    report = ReviewReport(summary="s", placement=Placement((), ()), usage=Usage(), model="m", files_reviewed=1,
                          walkthrough=(note,))
    body = review_body(report)
    assert "| `a.py` | word" in body and live(body) == []


def test_the_fallback_without_inline_comments_cuts_on_token_boundaries() -> None:
    text = neutralize(straddling(60_000, 25), REPO)
    payload = {"body": text + "\n<!-- reviewbot marker -->", "comments": [
        {"path": "a.py", "line": 1, "body": "🟠 **Major** · bug · **t**\n\nmore"}]}
    fallback = without_inline(payload, "GitHub answered 422")
    assert fallback["body"].endswith("\n<!-- reviewbot marker -->")
    assert live(fallback["body"].rpartition("\n")[0]) == []


def test_a_cut_inside_a_long_code_block_closes_the_fence() -> None:
    text = "Intro.\n\n```python\n" + "x = '@org/security-team'\n" * 4_000 + "```\n\nAfter."
    out = bounded(text, 60_000)
    assert len(out) <= 60_100 and out.endswith("```\n\n…(truncated)")
    assert live(out) == [] and render(out).count("<pre>") == 1


def test_a_cut_into_a_link_drops_the_whole_link() -> None:
    text = "a " * 100 + "[see the file on its branch](https://github.com/o/r/blob/main/a.py) tail"
    out = bounded(text, 215, "")
    assert out.rstrip().endswith("a") and "[" not in out


@pytest.mark.parametrize("text", [
    "ask \\`@org/security-team about it",
    "\\`@alice\\` wrote `this`",
    "a \\`` @bob `` b",  # an escaped backtick, then a real span of two
])
def test_an_escaped_backtick_starts_no_code_span_so_the_mention_after_it_is_broken(text: str) -> None:
    for out in (neutralize(text, REPO), neutralize_inline(text, REPO)):
        assert github_problems(out, repo="o/r") == [], out
        assert "\u200d" in out  # the mention outside the span is broken in the source too


def test_a_backslash_inside_a_code_span_is_literal_and_the_span_stays_code() -> None:
    out = neutralize("``\\`@carol`` after", REPO)
    assert "<code>\\`@carol</code>" in render(out) and github_problems(out, repo="o/r") == []
