"""Untrusted Markdown rebuilt by a real parser: checked on what it renders to, never on its source text."""

import json
from pathlib import Path

import pytest

from reviewbot.review.prompt.coverage import Coverage, render_coverage
from reviewbot.review.publish.markdown import neutralize, neutralize_inline
from reviewbot.review.publish.safemd import LinkPolicy
from tests.gfm import github_problems, render

FIXTURES = Path(__file__).parents[2] / "fixtures" / "markdown"
BYPASSES: dict[str, str] = json.loads((FIXTURES / "bypasses.json").read_text())["cases"]
SPEC = [(e["example"], e["markdown"]) for e in
        json.loads((FIXTURES / "commonmark_hazards.json").read_text())["examples"]]
REPO = LinkPolicy("https://github.com/o/r")


@pytest.mark.parametrize("name", sorted(BYPASSES))
def test_known_bypasses_render_without_hazards(name: str) -> None:
    text = BYPASSES[name]
    assert github_problems(neutralize(text, REPO), repo="o/r") == []
    assert github_problems(neutralize_inline(text, REPO), repo="o/r") == []


def test_the_corpus_is_hostile_before_rebuilding() -> None:
    """The corpus is worth something only if the raw texts do produce hazards."""
    assert sum(1 for t in BYPASSES.values() if github_problems(t, repo="o/r")) >= 40
    assert sum(1 for _, t in SPEC if github_problems(t, repo="o/r")) >= 150


@pytest.mark.parametrize(("example", "text"), SPEC, ids=[str(n) for n, _ in SPEC])
def test_commonmark_spec_examples_render_without_hazards(example: int, text: str) -> None:
    assert github_problems(neutralize(text, REPO), repo="o/r") == []
    assert github_problems(neutralize_inline(text, REPO), repo="o/r") == []


def test_links_into_the_repository_stay_links_and_others_become_text() -> None:
    out = render(neutralize("[file](https://github.com/o/r/blob/main/a.py) [pr](https://github.com/o/r/pull/2) "
                              "[other](https://github.com/o/other) [evil](https://evil.example)", REPO))
    assert '<a href="https://github.com/o/r/blob/main/a.py">file</a>' in out
    assert '<a href="https://github.com/o/r/pull/2">pr</a>' in out
    assert "other" in out and "evil" in out and out.count("<a ") == 2
    assert github_problems(neutralize("[x](https://github.com/o/r)", LinkPolicy()), repo="o/other") == []


def test_readable_markdown_survives() -> None:
    text = ("Use **bold**, *em*, ~~gone~~ and `code @x`.\n\n- one\n- two\n\n1. a\n2. b\n\n> quoted\n\n"
            "```python\nprint('<b>')\n```\n\n| a | b |\n|---|:-:|\n| 1 | 2 |")
    out = render(neutralize(text, REPO))
    for html in ("<strong>bold</strong>", "<em>em</em>", "<s>gone</s>", "<code>code @x</code>", "<li>one</li>",
                 "<ol>", "<blockquote>", 'class="language-python"', "print('&lt;b&gt;')", "<table>",
                 'style="text-align:center"'):
        assert html in out
    assert "&lt;img src=x&gt;" in render(neutralize("<img src=x>"))  # shown, not interpreted


def test_images_become_their_description_and_mentions_do_not_ping() -> None:
    out = render(neutralize("![a [b] c](https://evil.example/p.png) cc @alice and @org/team"))
    assert "[image: a [b] c]" in out and "<img" not in out
    assert "@\u200dalice" in out and "@\u200dorg/team" in out


def test_the_bots_layout_tags_cannot_be_closed_by_model_text() -> None:
    body = "<details><summary>Walkthrough</summary>\n\n" + neutralize(BYPASSES["details close injection"]) + \
        "\n\n</details>"
    html = render(body)
    assert html.count("<details>") == 1 and html.count("</details>") == 1
    assert github_problems(body, repo="o/r") == []


@pytest.mark.parametrize("text", [
    "see www.evil.example for details", "(www.evil.example)", "**www.evil.example**", "mail root@evil.example now",
    "mail first.last+tag@evil.co.example.", "same as other/repo#12", "see other-org/other.repo#3 too",
    "fixed in other/repo@0123456789abcdef", "| a |\n|---|\n| www.evil.example root@evil.example other/repo#1 |"])
def test_what_github_autolinks_beyond_known_tlds_and_foreign_references_stay_text(text: str) -> None:
    """GitHub links `www.` hosts and e-mail addresses with any top-level domain, and `owner/repo#N` however its
    `#` is escaped: each must come out as code, not as a link or a cross-reference."""
    for out in (neutralize(text, REPO), neutralize_inline(text, REPO)):
        assert github_problems(out, repo="o/r") == [], out
    assert github_problems(text, repo="o/r") != []


def test_references_to_the_repositorys_own_issues_stay_references() -> None:
    out = neutralize("fixes o/r#12 and #13", REPO)
    assert "`" not in out and github_problems(out, repo="o/r") == []


def test_coverage_notes_quoting_untrusted_names_break_what_github_would_link() -> None:
    hostile = "see www.evil.example, root@evil.example, other/repo#12 and @team"
    cov = Coverage(reviewed=(), partial=(), skipped=(("a.py", hostile),), context=(), sections=(), notes=(hostile,))
    out = render_coverage(cov)
    assert github_problems(out, repo="o/r") == [], out
