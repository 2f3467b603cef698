"""handle_command: `@app review | full review | security-review | pause | resume | fix | help` from a PR comment,
`@app audit [full] [PATH…]` from an issue or PR comment, and `@app fix [all | CWE-89 | #12]` in an audit's issue."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from reviewbot.commands.help import help_text
from reviewbot.jobs.audit.audit_target import pull_ref
from reviewbot.jobs.audit.triggers import start_audit
from reviewbot.jobs.commands.command_limits import first_telling, over_limit
from reviewbot.jobs.commands.refusal import MAY_SPEND, tell_not_allowed
from reviewbot.jobs.fix.audit_fix_enqueue import ask_audit_fix
from reviewbot.jobs.fix.fix_enqueue import ALL, FixArgs, enqueue_fix, may_fix
from reviewbot.queue import retries
from reviewbot.queue.enqueue import enqueue_review
from reviewbot.queue.request import SECURITY_TRIGGER, ReviewRequest
from reviewbot.state import keys

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)


async def handle_command(ctx: dict[str, Any], installation_id: int, repo: str, number: int, comment_id: int,
                         author: str, trusted: bool, verb: str, name: str,
                         args: list[str] | None = None, pull: bool = False) -> dict[str, Any]:
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    job_id = str(ctx.get("job_id") or keys.command_job_id(repo, comment_id))
    port = deps.installation_port(installation_id)
    try:
        return await retries.settled(redis, job_id, "command", {"repo": repo, "pr": number},
                                     _heard(port, redis, installation_id, repo, number, comment_id, author, trusted,
                                            verb, name, job_id, args or [], pull, deps.settings.marker_key()),
                                     first_s=deps.settings.retry_delay)
    finally:
        port.close()


async def _heard(port: GitHubPort, redis: Any, installation_id: int, repo: str, number: int, comment_id: int,
                 author: str, trusted: bool, verb: str, name: str, job_id: str, args: list[str],
                 pull: bool, key: bytes) -> dict[str, Any]:
    await port.add_reaction(repo, comment_id, "eyes")  # heard, before anything slow
    if verb == "fix" and pull:  # its own permission rule: the pull request's author may fix their own pull request
        return await _fix(port, redis, installation_id, repo, number, author, trusted, key)
    if not trusted and await port.permission(repo, author) not in MAY_SPEND:
        if await redis.set(keys.polite_key(repo, number, author), "1", nx=True, ex=keys.STATE_TTL):
            await tell_not_allowed(port, repo, number, author, key)
        log.info("command refused: no write access", extra={"repo": repo, "pr": number})
        return {"outcome": "not allowed"}
    if verb == "audit":
        return await _audit(port, redis, installation_id, repo, number, comment_id, author, args, pull)
    if verb == "fix":  # in an issue: the audit's answer or its tracking issue; within the commands' limits
        if limited := await _limited(port, redis, installation_id, repo, number, author):
            return limited
        return await ask_audit_fix(port, redis, installation_id, repo, number, author, args)
    return await _run(port, redis, installation_id, repo, number, author, verb, name, job_id)


async def _fix(port: GitHubPort, redis: Any, installation_id: int, repo: str, number: int, author: str,
               trusted: bool, key: bytes) -> dict[str, Any]:
    """Every open verified finding of the pull request, fixed on its head by the fix job (one job per head)."""
    pull = await port.get_pull(repo, number)
    if pull.state != "open":
        return {"outcome": "closed"}
    if not await may_fix(port, repo, author, pull.author, trusted=trusted):
        if await redis.set(keys.polite_key(repo, number, author), "1", nx=True, ex=keys.STATE_TTL):
            await tell_not_allowed(port, repo, number, author, key)
        return {"outcome": "not allowed"}
    if limited := await _limited(port, redis, installation_id, repo, number, author):
        return limited
    stored = await enqueue_fix(redis, FixArgs(installation_id, repo, number, pull.head_sha, ALL, author, "comment"))
    return {"outcome": stored, "sha": pull.head_sha}


async def _limited(port: GitHubPort, redis: Any, installation_id: int, repo: str, number: int,
                   author: str) -> dict[str, Any] | None:
    """The commands' per-pull-request and per-person limits, told once; None when within them."""
    if refusal := await over_limit(redis, installation_id, repo, number, author):
        if await first_telling(redis, repo, number, author):
            await port.create_issue_comment(repo, number, refusal)
        return {"outcome": "limited"}
    return None


async def _audit(port: GitHubPort, redis: Any, installation_id: int, repo: str, number: int, comment_id: int,
                 author: str, args: list[str], pull: bool) -> dict[str, Any]:
    """Within the same limits as review commands; the planning job answers with the plan, then edits it. On a
    pull request it audits the pull request's head (GitHub shows the alerts in its checks), else the default
    branch."""
    if limited := await _limited(port, redis, installation_id, repo, number, author):
        return limited
    full = bool(args) and args[0] == "full"
    audit, stored = await start_audit(redis, installation_id, repo, branch=pull_ref(number) if pull else "",
                                      paths=args[1:] if full else args, full=full, trigger="comment",
                                      run=f"comment-{comment_id}", number=number)
    return {"outcome": stored, "audit": audit}


async def _run(port: GitHubPort, redis: Any, installation_id: int, repo: str, number: int, author: str,
               verb: str, name: str, job_id: str) -> dict[str, Any]:
    if verb in ("review", "full review", "security-review"):
        pull = await port.get_pull(repo, number)
        if pull.state != "open":
            await port.create_issue_comment(repo, number, "This pull request is closed; nothing to review.")
            return {"outcome": "closed"}
        if refusal := await over_limit(redis, installation_id, repo, number, author):
            if await first_telling(redis, repo, number, author):
                await port.create_issue_comment(repo, number, refusal)
            log.info("command refused: limit reached", extra={"repo": repo, "pr": number})
            return {"outcome": "limited"}
        security = verb == "security-review"  # a full review in security mode
        # An explicit request: it reviews again even a SHA already reviewed. The job itself checks that this SHA
        # is still the head when it starts (a push may land in between); the newer head has its own job.
        stored = await enqueue_review(redis, ReviewRequest(installation_id, repo, number, pull.head_sha,
                                                           trigger=SECURITY_TRIGGER if security else "comment",
                                                           full=verb != "review", run=f"comment-{job_id}"))
        return {"outcome": stored, "sha": pull.head_sha}
    if verb == "pause":
        await redis.set(keys.paused_key(repo, number), "1", ex=keys.STATE_TTL)
        await port.create_issue_comment(repo, number, "Automatic reviews are paused on this pull request. "
                                        f"Comment `{name} resume` to restart them.")
        return {"outcome": "paused"}
    if verb == "resume":
        await redis.delete(keys.paused_key(repo, number))
        await port.create_issue_comment(repo, number, "Automatic reviews are back on for this pull request.")
        return {"outcome": "resumed"}
    prefix = "" if verb == "help" else "I did not understand that command.\n\n"
    await port.create_issue_comment(repo, number, prefix + help_text(name))
    return {"outcome": "help"}
