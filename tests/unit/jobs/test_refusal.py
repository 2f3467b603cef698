"""Which conversation comments count as reviewbot's earlier refusal to a person."""

from __future__ import annotations

from typing import Any

from reviewbot.jobs.commands.refusal import NOT_ALLOWED, told_before
from reviewbot.review.findings.fingerprints import review_marker, signed_marker

KEY = b"k" * 32
BOT = {"login": "reviewbot[bot]", "type": "Bot"}


def comment(body: str, user: dict[str, Any] = BOT) -> dict[str, Any]:
    return {"body": body, "user": user}


def refusal(login: str, key: bytes = KEY) -> str:
    return f"{NOT_ALLOWED}\n\n{signed_marker('refused', {'login': login}, key)}"


def test_the_bots_signed_refusal_to_that_person_counts_whatever_the_case_of_the_login() -> None:
    assert told_before([comment(refusal("drive-by"))], "Drive-By", KEY)


def test_anything_else_does_not() -> None:
    person = {"login": "copycat", "type": "User"}
    assert not told_before([comment(refusal("drive-by"), person)], "drive-by", KEY)  # pasted by a person
    assert not told_before([comment(refusal("someone-else"))], "drive-by", KEY)
    assert not told_before([comment(refusal("drive-by", b"another key"))], "drive-by", KEY)
    assert not told_before([comment(refusal("drive-by") + "\n\nand more")], "drive-by", KEY)  # not the last line
    assert not told_before([comment(NOT_ALLOWED)], "drive-by", KEY)
    # A review's marker is signed for another kind: the same payload does not pass for a refusal.
    assert not told_before([comment(review_marker({"login": "drive-by"}, KEY))], "drive-by", KEY)
