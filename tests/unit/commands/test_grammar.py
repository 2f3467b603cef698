"""The one command grammar: a paragraph of its own, `@app VERB`, then only a separator and a reason."""

from __future__ import annotations

import pytest

from reviewbot.commands.decisions import parse_command, parse_thread_command

NAMES = ["reviewbot"]


@pytest.mark.parametrize(("text", "verb"), [
    ("@reviewbot review", "review"),
    ("@ReviewBot Full Review.", "full review"),
    ("@reviewbot full-review", "full review"),
    ("@reviewbot security-review", "security-review"),
    ("@reviewbot[bot] pause!", "pause"),
    ("Rebased.\n\n@reviewbot resume", "resume"),
    ("@reviewbot help", "help"),
    ("@reviewbot review: after the rebase", "review"),
    ("@reviewbot full review please", "unknown"),  # words after the verb without a separator: prose
    ("@reviewbot what does full review cost?", "unknown"),
    ("@reviewbot dismiss", "unknown"),  # a thread's command, not a pull request's
    ("@reviewbot, review", "unknown"),  # only a space stands between the mention and the verb
])
def test_a_pull_request_comment_command(text: str, verb: str) -> None:
    command = parse_command(text, NAMES)
    assert command is not None and command.verb == verb


@pytest.mark.parametrize("text", [
    "~~~\n@reviewbot review\n~~~",
    "```\n@reviewbot review\n```",
    "Example:\n\n    @reviewbot review",
    "<!--\n@reviewbot review\n-->",
    "<!-- @reviewbot review -->",
    "> @reviewbot review",
    "- @reviewbot review",
    "# @reviewbot review",
    "thanks @reviewbot review",
    "Please\n@reviewbot review",
    "`@reviewbot review`",
    "*@reviewbot review*",
    "\\@reviewbot review",
    "@reviewbots review",
    "<details>\n<summary>log</summary>\n\n@reviewbot review\n\n</details>",
])
def test_no_command_where_the_parser_sees_none(text: str) -> None:
    assert parse_command(text, NAMES) is None
    assert parse_thread_command(text.replace("review", "dismiss"), NAMES) is None


def test_a_paragraph_after_a_closed_details_is_read() -> None:
    text = "<details>\n<summary>log</summary>\n\nold\n\n</details>\n\n@reviewbot dismiss: generated"
    command = parse_thread_command(text, NAMES)
    assert command is not None and command.reason == "generated"


@pytest.mark.parametrize(("text", "args"), [
    ("@reviewbot audit", ()),
    ("@reviewbot audit full src/api, lib/", ("full", "src/api", "lib")),
    ("@reviewbot audit `src/api`", ("src/api",)),
    ("@reviewbot audit full: before the release", ("full",)),
])
def test_audit_arguments(text: str, args: tuple[str, ...]) -> None:
    command = parse_command(text, NAMES)
    assert command is not None and (command.verb, command.args) == ("audit", args)


@pytest.mark.parametrize(("text", "verb", "reason"), [
    ("@reviewbot dismiss: fixture", "dismiss", "fixture"),
    ("@reviewbot won’t fix — legacy", "wont-fix", "legacy"),
    ("@reviewbot wont-fix - legacy", "wont-fix", "legacy"),
    ("@reviewbot false positive\nthe caller checks", "false-positive", "the caller checks"),
    ("@reviewbot dismiss.\nfixture", "dismiss", "fixture"),
    ("@reviewbot forget", "forget", ""),
    ("@reviewbot\tdismiss！", "dismiss", ""),
    ("@reviewbot dismiss：テスト用のデータです", "dismiss", "テスト用のデータです"),
    ("@reviewbot false positive: `a?b` is a regex", "false-positive", "`a?b` is a regex"),
    ("@reviewbot dismiss <!-- noise -->", "dismiss", ""),
    ("@reviewbot false positive——网关层已校验", "false-positive", "网关层已校验"),
    ("@reviewbot dismiss -- generated", "dismiss", "generated"),
])
def test_a_thread_command_and_its_reason(text: str, verb: str, reason: str) -> None:
    command = parse_thread_command(text, NAMES)
    assert command is not None and (command.verb, command.reason) == (verb, reason)


@pytest.mark.parametrize("text", [
    "@reviewbot dismiss?", "@reviewbot dismiss？", "@reviewbot dismiss: is this reachable at all?",
    "@reviewbot dismiss：これはテストだけですか", "@reviewbot dismiss this", "@reviewbot dismiss, fine",
    "@reviewbot dismiss. Fine.", "@reviewbot dismissal", "@reviewbot dismiss-all", "@reviewbot dismiss -x",
    "@reviewbot **dismiss**", "@reviewbot, dismiss", "@reviewbot: dismiss", "@reviewbot dismiss <!-- --> all",
    "@reviewbot [dismiss](https://example.com)", "~~@reviewbot dismiss~~",
])
def test_prose_and_questions_are_no_thread_command(text: str) -> None:
    assert parse_thread_command(text, NAMES) is None
