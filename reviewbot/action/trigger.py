"""The Actions event → the same decision a webhook delivery gets (reviewbot/webhooks/events.py), so the Action
reviews on the same pull-request actions and answers the same comment commands as the App."""

from __future__ import annotations

from typing import Any

from reviewbot.action.environment import ActionEnv
from reviewbot.webhooks.events import Decision, Ignored, PayloadError, decide

DEFAULT_NAME = "reviewbot"
# `pull_request_target` carries the same payload as `pull_request`; it runs in the base repository's context.
EVENTS = {"pull_request": "pull_request", "pull_request_target": "pull_request", "issue_comment": "issue_comment"}


def command_names(env: ActionEnv) -> tuple[str, ...]:
    """`@reviewbot`, plus REVIEWBOT_APP_SLUG and REVIEWBOT_COMMAND_ALIASES when the workflow sets them."""
    slug = env.settings.app_slug
    return (DEFAULT_NAME, *((slug,) if slug else ()), *env.settings.command_aliases)


def action_decision(env: ActionEnv) -> Decision:
    event = EVENTS.get(env.event_name)
    if event is None:
        return Ignored(f"the {env.event_name!r} event does not start a review (use pull_request, "
                       "pull_request_target or issue_comment)")
    # An Actions payload names no App installation: the workflow's token stands for it.
    payload: dict[str, Any] = {"installation": {"id": 0}, **env.event}
    payload.setdefault("repository", {"full_name": env.repo})
    try:
        return decide(event, payload, command_names(env))
    except PayloadError as exc:
        return Ignored(f"the event payload is not one reviewbot understands: {exc}")


def outside_author(env: ActionEnv) -> str | None:
    """Why this pull request's author is not reviewed automatically (the `author-associations` input), or None.
    GitHub's `author_association` says how the author relates to the repository; a fork's author is usually
    CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR or NONE."""
    if "*" in env.authors:
        return None
    pull = env.event.get("pull_request") or {}
    association = str(pull.get("author_association") or "NONE").upper()
    if association in env.authors:
        return None
    login = str((pull.get("user") or {}).get("login") or "the author")
    return (f"{login} is {association}, not one of {', '.join(sorted(env.authors))} (the `author-associations` "
            f"input): the pull request is not reviewed automatically; someone with write access can comment "
            f"`@{DEFAULT_NAME} review`")
