"""The fix loop's pure core: edits applied exactly, each check a reason to decline, and what people see."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from reviewbot.fixes.declined import Declined
from reviewbot.fixes.edits import Change, apply_edits
from reviewbot.fixes.fix_checks import Bounds, check_change, parse_errors
from reviewbot.fixes.patch import hunks, unified_diff
from reviewbot.fixes.render import commit_message, declined_reply, patch_block, suggestions
from reviewbot.fixes.target import FixTarget, from_comment
from reviewbot.fixes.wire import Edit, parse_fix, parse_verdict
from reviewbot.outcomes.classify import fix_trailers, sealed_fixes
from reviewbot.review.findings.fingerprints import marker
from reviewbot.review.findings.schema import OutputInvalid
from tests.gfm import assert_safe_for_github

KEY = b"k" * 32
HEAD = "def mean(items):\n    return sum(items) / len(items)\n\n\ndef total(items):\n    return sum(items)\n"
FIXED_LINE = "    return sum(items) / len(items) if items else 0.0\n"
TARGET = FixTarget(fingerprint="0123456789abcdef", path="app/stats.py", start=2, end=2, severity="major",
                   category="bug", title="Division by zero on an empty list", body="`len(items)` may be zero.")


def _fix() -> Change:
    return apply_edits({"app/stats.py": HEAD}, [Edit("app/stats.py", "    return sum(items) / len(items)\n",
                                                       FIXED_LINE)])


def test_edits_apply_only_when_the_old_text_occurs_exactly_once() -> None:
    assert _fix().after["app/stats.py"] == HEAD.replace("    return sum(items) / len(items)\n", FIXED_LINE)
    with pytest.raises(Declined) as twice:
        apply_edits({"a.py": HEAD}, [Edit("a.py", "return sum(items)", "return 0")])
    assert twice.value.reason == "does-not-apply" and "occurs 2 times" in twice.value.detail
    with pytest.raises(Declined) as absent:
        apply_edits({"a.py": HEAD}, [Edit("a.py", "return max(items)", "x")])
    assert "does not occur" in absent.value.detail
    with pytest.raises(Declined) as missing:
        apply_edits({}, [Edit("gone.py", "x", "y")])
    assert "not a file of the head" in missing.value.text
    with pytest.raises(Declined) as empty:
        apply_edits({"a.py": HEAD}, [])
    assert empty.value.reason == "no-edits"


def test_later_edits_see_the_earlier_ones_and_several_files_may_change() -> None:
    change = apply_edits({"a.py": "x = 1\n", "b.py": "y = 2\n"},
                         [Edit("a.py", "x = 1", "x = 10"), Edit("a.py", "x = 10", "x = 11"), Edit("b.py", "2", "3")])
    assert change.after == {"a.py": "x = 11\n", "b.py": "y = 3\n"} and change.paths == ("a.py", "b.py")


def test_checks_decline_each_with_its_reason() -> None:
    check_change(_fix(), TARGET.paths)  # passes
    with pytest.raises(Declined) as scope:
        check_change(_fix(), ["other.py"])
    assert scope.value.reason == "out-of-scope" and "app/stats.py" in scope.value.detail
    with pytest.raises(Declined) as size:
        check_change(_fix(), TARGET.paths, Bounds(max_lines=1))
    assert size.value.reason == "too-large"
    broken = apply_edits({"app/stats.py": HEAD}, [Edit("app/stats.py", "def total(items):", "def total(items:")])
    with pytest.raises(Declined) as syntax:
        check_change(broken, TARGET.paths)
    assert syntax.value.reason == "does-not-parse"
    secret = apply_edits({"app/stats.py": HEAD}, [Edit("app/stats.py", "return sum(items)\n",
                                                       "return sum(items)  # AKIAABCDEFGHIJKLMNOP\n")])
    with pytest.raises(Declined) as leaked:
        check_change(secret, TARGET.paths)
    assert leaked.value.reason == "secret"


def test_only_new_syntax_errors_count() -> None:
    already = "def f(:\n    pass\n"
    assert parse_errors("a.py", already) > 0 and parse_errors("notes.txt", "def f(:") == 0
    change = apply_edits({"a.py": already + "x = 1\n"}, [Edit("a.py", "x = 1", "x = 2")])
    check_change(change, ["a.py"])


def test_the_patch_applies_with_git(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "stats.py").write_text(HEAD)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    block = patch_block(_fix())
    assert block.startswith("<details>") and "git apply <<'REVIEWBOT_PATCH'" in block
    command = block.split("```sh\n", 1)[1].rsplit("\n```", 1)[0]
    subprocess.run(["sh", "-c", command], cwd=tmp_path, check=True)
    assert (tmp_path / "app" / "stats.py").read_text() == _fix().after["app/stats.py"]
    assert_safe_for_github(block)


def test_a_file_without_a_final_newline_keeps_it_that_way(tmp_path: Path) -> None:
    change = apply_edits({"a.txt": "one\ntwo"}, [Edit("a.txt", "two", "three")])
    (tmp_path / "a.txt").write_text("one\ntwo")
    (tmp_path / "fix.patch").write_text(unified_diff(change))
    subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, check=True)
    assert (tmp_path / "a.txt").read_text() == "one\nthree"


def test_hunks_become_suggestions_only_on_the_diffs_lines() -> None:
    assert hunks(_fix())[0].start == 2 and hunks(_fix())[0].end == 2
    made = suggestions(_fix(), {"app/stats.py": {1, 2, 3}}, TARGET.title)
    assert made is not None and len(made) == 1 and "```suggestion\n" + FIXED_LINE in made[0].body
    assert suggestions(_fix(), {"app/stats.py": {5, 6}}, TARGET.title) is None
    inserted = apply_edits({"a.py": "a = 1\nb = 2\n"}, [Edit("a.py", "a = 1\n", "a = 1\nc = 3\n")])
    assert hunks(inserted)[0].start == 1 and hunks(inserted)[0].lines == ("a = 1", "c = 3")


def test_the_commit_names_the_finding_and_carries_a_trailer_only_the_app_can_seal() -> None:
    message = commit_message([TARGET], "Return 0.0 for an empty list.", repo="acme/app", key=KEY)
    assert message.startswith("Fix: Division by zero on an empty list\n\n")
    assert fix_trailers([message]) == {"0123456789abcdef"}
    assert sealed_fixes([message], "acme/app", KEY) == {"0123456789abcdef"}  # what later reviews and outcomes read
    typed = "Fix it myself\n\nReviewbot-Fix: 0123456789abcdef\nReviewbot-Seal: " + "0" * 32
    assert sealed_fixes([typed], "acme/app", KEY) == set()  # anyone can type the words, not the seal
    assert sealed_fixes([message], "acme/other", KEY) == set()  # nor copy it from another repository's commit


def test_the_model_s_words_in_a_commit_close_no_issue_ping_nobody_and_leak_no_secret() -> None:
    hostile = FixTarget(**{**TARGET.__dict__, "title": "Injection, closes #12 cc @octocat"})
    message = commit_message([hostile], "Fixes #5, see https://evil.example/x, token ghp_" + "a" * 36,
                             repo="acme/app", key=KEY)
    assert "#12" not in message and "#5" not in message and "@octocat" not in message
    assert "evil.example" not in message and "ghp_" not in message
    assert fix_trailers([message]) == {"0123456789abcdef"}


@pytest.mark.parametrize("path", [".github/workflows/ci.yml", ".github/reviewbot.yml", "CODEOWNERS", ".gitmodules",
                                  ".github/actions/setup/action.yml"])
def test_a_fix_never_changes_ci_reviewbot_s_configuration_or_ownership(path: str) -> None:
    change = apply_edits({path: "on: push\n"}, [Edit(path, "on: push\n", "on: [push, pull_request]\n")])
    with pytest.raises(Declined) as declined:
        check_change(change, [path])  # even when the finding (its evidence, the model's words) names the file
    assert declined.value.reason == "out-of-scope"


def test_a_declined_reply_shows_the_model_s_reason_as_harmless_text() -> None:
    reply = declined_reply([TARGET], "the verifier says @acme/security ![x](https://evil.example/p.png) "
                                     "[docs](https://evil.example)")
    assert_safe_for_github(reply)


def test_the_target_is_read_from_an_authentic_verified_comment_only() -> None:
    signed = marker("0123456789abcdef", "fedcba9876543210", KEY)
    body = "🟠 **Major** · bug · **Division by zero**\n\nText.\n\n" + signed
    comment = {"id": 7, "body": body, "path": "app/stats.py", "line": 2, "start_line": None, "side": "RIGHT"}
    target = from_comment(comment, KEY)
    assert target is not None and (target.title, target.start, target.comment_id) == ("Division by zero", 2, 7)
    assert "reviewbot:fp" not in target.body
    assert from_comment(comment, b"x" * 32) is None
    assert from_comment({**comment, "line": None}, KEY) is None
    unverified = body.replace("bug · ", "bug · **unverified** · ")
    assert from_comment({**comment, "body": unverified}, KEY) is None


def test_answers_are_parsed_or_repaired() -> None:
    proposal = parse_fix('{"explanation": "guard", "edits": [{"path": "./a.py", "old": "x", "new": "y"}]}')
    assert proposal.edits == (Edit("a.py", "x", "y"),) and proposal.explanation == "guard"
    with pytest.raises(OutputInvalid):
        parse_fix('{"edits": [{"path": "a.py"}]}')
    assert parse_verdict('{"fixed": false, "reason": "still divides"}').fixed is False
    with pytest.raises(OutputInvalid):
        parse_verdict('{"fixed": "yes"}')
