"""What people see: no pings, no images, no raw HTML from untrusted text; suggestions fenced safely."""

from reviewbot.model import Usage
from reviewbot.review.findings.anchoring import Anchored, Placement
from reviewbot.review.findings.schema import Finding
from reviewbot.review.publish.markdown import ReviewReport, comment_body, neutralize, review_body
from tests.gfm import render as rendered


def make(**kw: object) -> Finding:
    base: dict[str, object] = {"path": "a.py", "line": 3, "side": "RIGHT", "severity": "minor",
                               "category": "bug", "title": "t", "body": "b", "confidence": 0.8}
    return Finding.model_validate(base | kw)


def test_mentions_images_and_html_are_neutralised_outside_code() -> None:
    html = rendered(neutralize("cc @everyone and @org/team ![x](https://evil.example/p.png) <img src=x> `@keep` a@b.c"))
    assert "@everyone" not in html and "@org/team" not in html and "@\u200deveryone" in html
    assert "<img" not in html and "[image: x]" in html and "evil.example" not in html
    assert "<code>@keep</code>" in html and "a@b.c" in html


def test_suggestion_fence_survives_backticks_in_the_code() -> None:
    body = comment_body(Anchored(make(suggestion="x = '```'"), 3, None), suggestion_ok=True)
    assert "````suggestion\nx = '```'\n````" in body


def test_suggestions_that_do_not_apply_are_plain_code_blocks() -> None:
    body = comment_body(Anchored(make(side="LEFT", suggestion="y = 1"), 3, None))
    assert "```suggestion" not in body and "```\ny = 1\n```" in body


def report(*findings: Finding) -> ReviewReport:
    return ReviewReport(summary="Summary @alice", usage=Usage(prompt_tokens=1000, cached_tokens=250,
                        completion_tokens=100, cost_usd=0.00123), model="@cf/moonshotai/kimi-k2.5",
                        files_reviewed=2, placement=Placement(
                            inline=tuple(Anchored(f, f.line, f.start_line) for f in findings), outside=()))


def test_review_body_neutralises_the_summary_and_shows_cost_and_cache() -> None:
    body = review_body(report(make(), make(line=5, start_line=4, title="range")))
    assert "@alice" not in body and "25% cached" in body and "$0.0012" in body
    assert "2 inline comments." in body
