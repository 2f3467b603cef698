"""tests/gfm.py, the one renderer the injection tests use, catches what GitHub would make dangerous."""

from __future__ import annotations

import pytest

from tests.gfm import assert_safe_for_github, github_problems, render, sarif_message_problems

REPO = ("github.com", "acme/widgets")


@pytest.mark.parametrize(("text", "problem"), [
    ("thanks @alice", "mention '@alice'"),
    ("cc @acme/admins", "mention '@acme/admins'"),
    ("\\`@team after an escaped backtick", "mention '@team'"),  # GitHub decides code after escapes
    ("&#64;alice", "mention '@alice'"),
    ("é@alice", "mention '@alice'"),  # GitHub's word characters are ASCII
    ("| @a |\n|---|\n| x |", "mention '@a'"),
    ("[x](https://evil.example)", "foreign link 'https://evil.example'"),
    ("<https://evil.example>", "foreign link 'https://evil.example'"),
    ("see www.evil.com", "foreign link 'http://www.evil.com'"),
    ("see www.evil.example", "foreign link 'www.evil.example'"),  # GitHub checks no top-level domain
    ("mail root@evil.com", "foreign link 'mailto:root@evil.com'"),
    ("mail root@evil.example", "foreign link 'root@evil.example'"),
    ("[x](https://github.com/acme/widgets/../../evil/repo)", "foreign link"),
    ("[x](https://github.com/acme/widgets-evil)", "foreign link"),
    ("![p](https://github.com/acme/widgets/p.png)", "image"),
    ("<img src=x>", "raw HTML <img"),
    ("<details open>", "raw HTML <details …>"),
    ("<!-- hidden -->", "HTML comment"),
    ("fixed in evil/repo#12", "foreign reference 'evil/repo#12'"),
])
def test_hazards_are_found(text: str, problem: str) -> None:
    found = github_problems(text, *REPO)
    assert any(problem in p for p in found), found
    with pytest.raises(AssertionError):
        assert_safe_for_github(text, *REPO)


@pytest.mark.parametrize("text", [
    "`@alice` and\n\n```\n@alice <img src=x>\n```\n\n    @indented",
    "a@b is no mention; @\u200dalice neither",
    "[line 4](https://github.com/acme/widgets/blob/abc/app.py#L4) and https://github.com/acme/widgets/pull/2",
    "<details><summary>Walkthrough</summary>\n\n| a | b |\n|---|---|\n| x | y |\n\n</details>\n\n<sub>n</sub>",
    "setup.py and example.com are not links on GitHub; acme/widgets#3 is this repository",
    "body\n<!-- reviewbot:fp=0123456789abcdef;ck=0123456789abcdef;mac=0123456789abcdef0123456789abcdef -->",
])
def test_what_the_bot_writes_passes(text: str) -> None:
    assert github_problems(text, *REPO) == []


def test_plain_text_is_checked_for_mentions_only() -> None:
    assert github_problems("[x](https://evil.example) <b>", plain=True) == []
    assert github_problems("hi @alice", plain=True) == ["mention '@alice'"]
    assert "<a href=\"https://evil.example\">" in render("<https://evil.example>")


def test_a_commit_of_another_repository_is_a_foreign_reference() -> None:
    assert github_problems("fixed by evil/repo@0123456789abcdef", *REPO) == [
        "foreign reference 'evil/repo@0123456789abcdef'"]
    assert github_problems("fixed by acme/widgets@0123456789abcdef", *REPO) == []


@pytest.mark.parametrize("text", ["@admin", "[x](https://evil.example)", "see http://evil.example",
                                  "www.evil.example", "root@evil.example", "evil/repo#1", "mailto:a@evil.example"])
def test_sarif_messages_are_text_whose_only_links_go_to_related_locations(text: str) -> None:
    assert sarif_message_problems(f"{text}. Evidence: [a.py:3](1).", "acme/widgets") != []
    assert sarif_message_problems("<b>x</b> hxxps[:]//evil[.]example. Evidence: [a.py:3](1).") == []
