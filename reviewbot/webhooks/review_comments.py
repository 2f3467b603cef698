"""`pull_request_review_comment` → a question or a thread command (dismiss, forget), or a reasoned ignore (pure)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from reviewbot.commands.decisions import parse_thread_command

# Only the repository's owner is trusted on sight: an organisation MEMBER or a COLLABORATOR may hold read access
# only, so the worker asks the permission API before any of their requests can spend money.
TRUSTED_ASSOCIATIONS = frozenset({"OWNER"})


@dataclass(frozen=True)
class ThreadReply:
    """A person wrote in a review thread: the worker checks their permission and the thread, then answers."""

    installation_id: int
    repo: str
    number: int
    comment_id: int
    root_id: int  # the thread's first comment (the one replies are posted under)
    author: str
    trusted: bool  # the association alone allows it; otherwise the worker asks the permission API
    mentioned: bool  # the App was named: a question (answered in any review thread), or a command
    command: str = ""  # a thread command's verb (`decisions.ThreadVerb`), or "" for a question
    reason: str = ""  # the command's own words after the verb


def mentions(body: str, names: Iterable[str]) -> bool:
    """`@name` as a whole word, case-insensitively, outside quoted lines and code spans."""
    own = "\n".join(line for line in body.splitlines() if not line.lstrip().startswith(">"))
    own = re.sub(r"`[^`]*`", " ", own)
    return any(re.search(rf"(?<![\w@])@{re.escape(n.lstrip('@'))}(?![\w-])", own, re.IGNORECASE)
               for n in names if n.strip("@"))


def review_comment(payload: dict[str, Any], names: Iterable[str], field: Any) -> ThreadReply | str:
    """The decision, or the reason to ignore the event; `field` reads a required field (PayloadError)."""
    if payload.get("action") != "created":
        return "only new review comments are read"
    comment = field(payload, "comment", dict)
    user = field(comment, "user", dict)
    login = field(user, "login", str)
    if user.get("type") == "Bot" or login.endswith("[bot]"):
        return "comments from bots (the App's own included) are never answered"
    body = str(comment.get("body") or "")
    names = list(names)
    command = parse_thread_command(body, names)
    # A command's mention is one the grammar read; `mentions` is the wider net for questions
    mentioned = command is not None or mentions(body, names)
    if not mentioned:  # free text never dismisses anything, whatever its words: only a command does
        return "review comment does not address reviewbot"
    reply_to = comment.get("in_reply_to_id")
    comment_id = field(comment, "id", int)
    pull = field(payload, "pull_request", dict)
    return ThreadReply(
        installation_id=field(field(payload, "installation", dict), "id", int),
        repo=field(field(payload, "repository", dict), "full_name", str), number=field(pull, "number", int),
        comment_id=comment_id, root_id=reply_to if isinstance(reply_to, int) else comment_id, author=login,
        trusted=str(comment.get("author_association") or "NONE") in TRUSTED_ASSOCIATIONS, mentioned=mentioned,
        command=command.verb if command else "", reason=command.reason if command else "")
