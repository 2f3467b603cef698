"""A finding's outcome when its pull request closes, from what GitHub shows then (pure)."""

from __future__ import annotations

import dataclasses
import hmac
from collections.abc import Iterable
from dataclasses import dataclass

from reviewbot.outcomes.records import DECIDED_BEFORE_CLOSE, FindingRecord
from reviewbot.review.findings.fingerprints import fix_seal

FIX_TRAILER = "reviewbot-fix"  # `Reviewbot-Fix: <fingerprint>` in a commit message: the App's fix landed
SEAL = "reviewbot-seal"  # the App's signature over a fix commit's fingerprints (review/findings/fingerprints.py)
FIX_COMMIT = "fix commit"


@dataclass(frozen=True)
class ThreadState:
    """reviewbot's thread of one finding as GitHub reports it at close, with the reactions on its comment."""

    comment_id: int
    is_resolved: bool
    resolved_by: str  # the login that resolved it; empty when unresolved or unknown
    thumbs_up: int = 0
    thumbs_down: int = 0
    disliked_by: tuple[str, ...] = ()  # who of those giving 👎 may decide (write access): what proposals count


def fix_trailers(messages: Iterable[str]) -> set[str]:
    """Fingerprints named by `Reviewbot-Fix:` trailers, whoever wrote the commit."""
    return {fp for message in messages for fp in _trailers(message, FIX_TRAILER)}


def sealed_fixes(messages: Iterable[str], repo: str, key: bytes) -> set[str]:
    """Fingerprints named by the App's own fix commits: their `Reviewbot-Fix:` trailers count only with the
    `Reviewbot-Seal:` the App signs them with (a person's commit may copy the words, not the key)."""
    found: set[str] = set()
    for message in messages:
        fps = _trailers(message, FIX_TRAILER)
        if fps and any(hmac.compare_digest(seal, fix_seal(fps, repo, key)) for seal in _trailers(message, SEAL)):
            found.update(fps)
    return found


def _trailers(message: str, wanted: str) -> list[str]:
    """The values of one trailer: git's trailer block is the message's last paragraph, each line `Token: value`
    (the token at the line's start, without spaces, matched case-insensitively; an indented line continues the
    one before)."""
    paragraphs = [p for p in message.replace("\r\n", "\n").strip().split("\n\n") if p.strip()]
    if len(paragraphs) < 2:  # a subject line alone has no trailers
        return []
    values: list[str] = []
    for line in paragraphs[-1].splitlines():
        token, colon, value = line.partition(":")
        if colon and not line[:1].isspace() and token.strip().lower() == wanted and " " not in token.strip():
            values += [part for part in value.replace(",", " ").split() if part.isalnum()]
    return values


def at_close(record: FindingRecord, thread: ThreadState | None, *, merged: bool, fixes: set[str], bot: str,
             now: float) -> FindingRecord:
    """The record with its outcome at close: an earlier fix or dismissal stands; a merged fix commit is a fix; a
    thread a person resolved is `resolved`; a thread only the App resolved was resolved as fixed; anything
    else was left open at merge or at close. Reactions are taken whatever the outcome. Deciding again (a
    redelivered `closed`) changes nothing but the reactions: the first close's time and decision stand."""
    if thread is not None:
        record = dataclasses.replace(record, comment_id=thread.comment_id, thumbs_up=thread.thumbs_up,
                                     thumbs_down=thread.thumbs_down, disliked_by=thread.disliked_by)
    record = dataclasses.replace(record, closed_at=record.closed_at or now)
    found = _decide(record, thread, merged=merged, fixes=fixes, bot=bot, now=now)
    if found.outcome == record.outcome:
        return record
    return found


def _decide(record: FindingRecord, thread: ThreadState | None, *, merged: bool, fixes: set[str], bot: str,
            now: float) -> FindingRecord:
    if record.outcome in DECIDED_BEFORE_CLOSE:
        return record
    if merged and record.fingerprint in fixes:  # the App's fix commit landed with the merge
        return decided(record, "fixed", FIX_COMMIT, now)
    if thread is not None and thread.is_resolved:
        if thread.resolved_by and not is_app_login(thread.resolved_by, bot):  # a person, or another bot
            return decided(record, "resolved", thread.resolved_by, now)
        if thread.resolved_by:  # the App resolves its own threads only when the code changed (or on dismissal)
            return decided(record, "fixed", thread.resolved_by, now)
    return decided(record, "open_at_merge" if merged else "open_at_close", "", now)


def decided(record: FindingRecord, outcome: str, by: str, now: float, scope: str = "") -> FindingRecord:
    return dataclasses.replace(record, outcome=outcome, by=by, decided_at=now, scope=scope or record.scope)


def is_app_login(login: str, bot: str) -> bool:
    """The App itself: its slug as GraphQL spells it, or with the REST API's `[bot]`; another bot's resolution is
    not the App's, so it is not a fix."""
    name = login.lower().removesuffix("[bot]")
    return bool(bot) and name == bot.lower().removesuffix("[bot]")
