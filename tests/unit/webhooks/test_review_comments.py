"""Which review comments reach the worker: mentions and thread commands, never bots or free text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reviewbot.webhooks.events import Ignored, decide
from reviewbot.webhooks.review_comments import ThreadReply, mentions

FIXTURE = Path(__file__).parents[2] / "fixtures" / "webhooks" / "pull_request_review_comment.created.json"


def event(body: str, **comment: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    data["comment"] |= {"body": body, **comment}
    return data


def test_a_mention_in_a_reply_is_a_question_for_the_thread_root() -> None:
    decision = decide("pull_request_review_comment", event("@reviewbot-test why?"), ["reviewbot-test"])
    assert isinstance(decision, ThreadReply)
    # A MEMBER may hold read access only: the worker asks the permission API before paying for an answer.
    assert (decision.root_id, decision.mentioned, decision.trusted, decision.command) == (5560001, True, False, "")
    owner = decide("pull_request_review_comment", event("@reviewbot-test why?", author_association="OWNER"),
                   ["reviewbot-test"])
    assert isinstance(owner, ThreadReply) and owner.trusted


def test_a_dismissal_is_a_command_and_free_text_is_ignored_whatever_it_says() -> None:
    decision = decide("pull_request_review_comment", event("@reviewbot-test won't fix: by design"),
                      ["reviewbot-test"])
    assert isinstance(decision, ThreadReply) and (decision.command, decision.reason) == ("wont-fix", "by design")
    for text in ("won't fix, by design", "ok thanks", "This is NOT a false positive"):
        assert isinstance(decide("pull_request_review_comment", event(text), ["reviewbot-test"]), Ignored)


def test_bots_edits_and_quoted_mentions_never_reach_the_worker() -> None:
    bot = event("@reviewbot-test hi", user={"login": "reviewbot-test[bot]", "id": 1, "type": "Bot"})
    assert isinstance(decide("pull_request_review_comment", bot, ["reviewbot-test"]), Ignored)
    edited = {**event("@reviewbot-test hi"), "action": "edited"}
    assert isinstance(decide("pull_request_review_comment", edited, ["reviewbot-test"]), Ignored)
    assert not mentions("> @reviewbot-test said\nok", ["reviewbot-test"])
    assert not mentions("mail me at x@reviewbot-test.com", ["reviewbot-test"])
    assert not mentions("@reviewbot-tester", ["reviewbot-test"])
