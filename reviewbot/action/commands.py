"""`@reviewbot review | full review | security-review | help` in a pull request comment, answered by the Action
(an `issue_comment` workflow) with the App's rules: writers only, bots never, others told once."""

from __future__ import annotations

import logging

from reviewbot.action.reviewing import Outcome, Run, review_in_action
from reviewbot.errors import GitHubError
from reviewbot.jobs.commands.refusal import MAY_SPEND, tell_not_allowed, told_before
from reviewbot.queue.request import SECURITY_TRIGGER, ReviewRequest
from reviewbot.webhooks.events import CommentCommand

log = logging.getLogger(__name__)
NO_STATE = ("`{name} {verb}` needs reviewbot's server, which keeps state between runs; in the GitHub Action, "
            "automatic reviews follow the workflow's `on:` triggers (filter them with `if:` on a label, for example).")
NO_AUDIT = ("`{name} audit` needs reviewbot's server; in the GitHub Action, a security audit is a workflow of its own "
            "with `mode: audit`, on a schedule or by hand, that uploads SARIF to code scanning (see the action's "
            "documentation).")
NO_FIX = ("`{name} fix` needs reviewbot's server: fixes are made by its worker, when its operator turns them on; "
          "the GitHub Action reviews only.")
# Only what this workflow answers: the App's own help also lists pause, resume, audit and thread commands.
HELP = """reviewbot (the GitHub Action) answers these commands in a pull request comment, each in a paragraph of \
its own:

- `{name} review`: review the latest commit (only what changed since the last review).
- `{name} full review`: review everything again, ignoring earlier findings.
- `{name} security-review`: a full review against the security checklist, findings tagged with CWE ids and \
every one verified.
- `{name} help`: this message.

Only people with write access to the repository can start reviews."""


async def run_command(run: Run, command: CommentCommand) -> Outcome:
    port, repo, number, verb, name = run.port, command.repo, command.number, command.command.verb, command.command.name
    try:
        await port.add_reaction(repo, command.comment_id, "eyes")  # heard, before anything slow
    except GitHubError as exc:  # a token without the permission still reviews; the reaction is a courtesy
        log.warning("could not react to the comment", extra={"error": str(exc)})
    if not command.trusted and await _permission(run, repo, command.author) not in MAY_SPEND:
        return await _refuse(run, repo, number, command.author)
    if verb in ("review", "full review", "security-review"):
        pull = await port.get_pull(repo, number)
        if pull.state != "open":
            await port.create_issue_comment(repo, number, "This pull request is closed; nothing to review.")
            return Outcome("skipped", "the pull request is closed")
        trigger = SECURITY_TRIGGER if verb == "security-review" else "comment"
        return await review_in_action(run, ReviewRequest(0, repo, number, pull.head_sha, trigger=trigger,
                                                         full=verb != "review", run=run.run_id))
    if verb in ("pause", "resume", "audit", "fix"):
        why = NO_AUDIT if verb == "audit" else NO_FIX if verb == "fix" else NO_STATE
        await port.create_issue_comment(repo, number, why.format(name=f"@{name}", verb=verb))
        return Outcome("skipped", f"{verb} is not available in the GitHub Action")
    prefix = "" if verb == "help" else "I did not understand that command.\n\n"
    await port.create_issue_comment(repo, number, prefix + HELP.format(name=f"@{name}"))
    return Outcome("skipped", "answered with the list of commands")


async def _refuse(run: Run, repo: str, number: int, author: str) -> Outcome:
    """Once per pull request and person: the Action has no Redis, so what it remembers is its own signed refusal
    among the pull request's comments."""
    key = run.settings.marker_key()
    try:
        comments = await run.port.list_issue_comments(repo, number)
    except GitHubError as exc:  # unread, the reply is still owed: a second one is the lesser harm than none
        log.warning("could not read the pull request's comments", extra={"error": str(exc)})
        comments = []
    why = f"{author} may not start reviews (no write access)"
    if told_before(comments, author, key):
        return Outcome("skipped", f"{why}; already told on this pull request")
    await tell_not_allowed(run.port, repo, number, author, key)
    return Outcome("skipped", why)


async def _permission(run: Run, repo: str, author: str) -> str:
    try:
        return await run.port.permission(repo, author)
    except GitHubError as exc:  # the token may not read collaborators: nobody unproven may spend the team's money
        log.warning("could not read the author's permission", extra={"error": str(exc)})
        return "none"
