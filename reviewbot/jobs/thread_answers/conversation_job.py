"""answer_thread: a question in a review thread answered in that thread, or a thread command (dismiss, forget,
fix)."""

from __future__ import annotations

import contextlib
import functools
import logging
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from reviewbot.app.identity import known_slug
from reviewbot.commands.decisions import THREAD_VERBS
from reviewbot.inference.budget import BudgetSpent, review_estimate
from reviewbot.inference.memo import RedisMemo
from reviewbot.jobs.commands.refusal import MAY_SPEND
from reviewbot.jobs.thread_answers.dismissal import thread_command
from reviewbot.jobs.thread_answers.question_limits import count_question
from reviewbot.jobs.thread_answers.thread_fix import thread_fix
from reviewbot.jobs.thread_answers.thread_prompt import ask_model
from reviewbot.observe.jobcontext import current
from reviewbot.queue import retries
from reviewbot.state import keys

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)
VERBS = frozenset(THREAD_VERBS)
LIMITED = ("I have answered as many questions on this pull request today as this installation allows "
           "(REVIEWBOT_CONVERSATION_PR_LIMIT / REVIEWBOT_CONVERSATION_USER_LIMIT); please ask again tomorrow.")


async def answer_thread(ctx: dict[str, Any], installation_id: int, repo: str, number: int, comment_id: int,
                        root_id: int, author: str, trusted: bool, mentioned: bool, command: str = "",
                        reason: str = "", trigger: str = "conversation") -> dict[str, Any]:
    """Permission first (no model request for people without write access), then a thread command or an answer.
    `command` is a verb of `decisions.THREAD_VERBS`; anything else (a job queued before commands existed) is none."""
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    job_id = str(ctx.get("job_id") or keys.conversation_job_id(repo, comment_id))
    port = deps.installation_port(installation_id)
    try:
        return await retries.settled(redis, job_id, "thread answer", {"repo": repo, "pr": number},
                                     _reply(deps, port, redis, installation_id, repo, number, comment_id, root_id,
                                            author, trusted, mentioned, command if command in VERBS else "", reason,
                                            job_id), first_s=deps.settings.retry_delay)
    finally:
        port.close()


async def _reply(deps: Deps, port: GitHubPort, redis: Any, installation_id: int, repo: str, number: int,
                 comment_id: int, root_id: int, author: str, trusted: bool, mentioned: bool, command: str,
                 reason: str, job_id: str) -> dict[str, Any]:
    if command == "fix":  # its own permission rule (the pull request's author may fix it), checked by the fix
        return await thread_fix(deps, port, redis, installation_id, repo, number, comment_id, root_id, author, trusted)
    role = "admin" if trusted else await port.permission(repo, author)  # OWNER: the repository is theirs
    if role not in MAY_SPEND:
        log.info("thread reply ignored: no write access", extra={"repo": repo, "pr": number})
        return {"outcome": "not allowed"}
    comments = await port.list_review_comments(repo, number)
    thread = [c for c in comments if c.get("id") == root_id or c.get("in_reply_to_id") == root_id]
    thread = sorted((c for c in thread if int(c.get("id") or 0) <= comment_id), key=lambda c: int(c["id"]))
    if not thread or int(thread[0].get("id") or 0) != root_id:
        return {"outcome": "ignored", "reason": "the thread is gone"}
    bot = await _bot_login(deps, redis)
    if _login(thread[-1]) == bot or _login(thread[-1]).endswith("[bot]"):
        return {"outcome": "ignored", "reason": "the App never answers itself"}
    ours = _login(thread[0]) in (bot, "[bot]") or (bot == "[bot]" and _login(thread[0]).endswith("[bot]"))
    if command:
        return await thread_command(deps, port, redis, installation_id, repo, number, thread[0], ours=ours,
                                    author=author, role=role, verb=command, reason=reason,
                                    app=bot.removesuffix("[bot]") or "app")
    if mentioned:
        return await _answer(deps, port, redis, installation_id, repo, number, thread, author, job_id, bot)
    return {"outcome": "ignored", "reason": "not a question or a command for reviewbot"}


async def _answer(deps: Deps, port: GitHubPort, redis: Any, installation_id: int, repo: str, number: int,
                  thread: list[dict[str, Any]], author: str, job_id: str, bot: str) -> dict[str, Any]:
    if not await count_question(redis, installation_id, repo, number, author, int(thread[-1]["id"]),
                                deps.settings.conversation_pr_limit, deps.settings.conversation_user_limit):
        if await redis.set(keys.polite_key(repo, number) + ":conversation", "1", nx=True, ex=86_400):
            await port.reply_to_review_comment(repo, number, int(thread[0]["id"]), LIMITED)
        return {"outcome": "limited"}
    if (scope := current()) is not None:  # each paid request is charged as it arrives, however the answer ends
        scope.charge = functools.partial(deps.budget.charge, installation_id, repo, job_id)
    try:  # held before the model is asked, released once it has answered (or failed)
        await deps.budget.reserve(installation_id, repo, job_id, *review_estimate(deps.settings))
    except BudgetSpent as exc:
        return {"outcome": "budget", "reason": str(exc)}
    try:  # each request of the answer (tool turns too) grows the hold first: BudgetSpent when it would not fit
        body, usage = await ask_model(deps, port, redis, installation_id, repo, number, thread, job_id, bot)
    except BudgetSpent as exc:
        log.info("thread answer stopped at the daily budget", extra={"repo": repo, "pr": number})
        return {"outcome": "budget", "reason": str(exc), "usage": exc.usage.as_json()}
    finally:
        with contextlib.suppress(RedisError):
            await deps.budget.release(installation_id, repo, job_id)
    await port.reply_to_review_comment(repo, number, int(thread[0]["id"]), body)
    await RedisMemo(redis, job_id).clear()  # kept only so that a retry after a failed reply does not pay again
    log.info("thread answered", extra={"repo": repo, "pr": number, "cached_tokens": usage.cached_tokens,
                                       "prompt_tokens": usage.prompt_tokens})
    return {"outcome": "answered", "usage": usage.as_json()}


async def _bot_login(deps: Deps, redis: Any) -> str:
    """`<slug>[bot]`: the App's slug as configured or as the worker read it from `GET /app` at startup."""
    slug = await known_slug(deps.settings, redis)
    return f"{slug}[bot]" if slug else "[bot]"


def _login(comment: dict[str, Any]) -> str:
    return str((comment.get("user") or {}).get("login") or "")
