"""The model request of a thread answer: the review's own prompt (same bytes, same affinity) plus the thread."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from reviewbot.jobs.pr_review.gates import load_config
from reviewbot.jobs.pr_review.pr_prompt import pr_prompt
from reviewbot.review.engine import prepare
from reviewbot.review.prompt.thread import (
    ANSWER_FORMATS,
    Thread,
    answer_body,
    comment_pairs,
    excerpt,
    parse_answer,
    thread_message,
)

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps
    from reviewbot.model import Usage


async def ask_model(deps: Deps, port: GitHubPort, redis: Any, installation_id: int, repo: str, number: int,
                    thread: list[dict[str, Any]], job_id: str, bot: str) -> tuple[str, Usage]:
    """Rebuild the prompt the review sent (its remembered layout keeps the context blocks and their order), add
    the thread as the last turn, and ask on the review's session: the shared prefix comes from the cache."""
    pull = await port.get_pull(repo, number)
    loaded = await load_config(port, repo, pull.base_ref, visibility=pull.visibility)
    built = await pr_prompt(deps.settings, port, redis, installation_id, repo, pull, loaded.config)
    review_input, tools, affinity = built.review_input, built.tools, built.review_input.affinity
    # Context selection is a second of CPU: not on the event loop.
    messages = (await asyncio.to_thread(prepare, review_input)).prompt.messages
    root_comment = thread[0]
    line = root_comment.get("line") or root_comment.get("original_line")
    path = str(root_comment.get("path") or "")
    head_text = await port.get_file(repo, path, pull.head_sha) if path else None
    asked = Thread(path=path, line=int(line) if isinstance(line, int) else None, comments=comment_pairs(thread),
                   head_excerpt=excerpt(head_text, int(line) if isinstance(line, int) else None))

    async def gate(held_tokens: int, held_usd: float) -> None:
        """Before each request (tool turns too), the answer's daily-budget hold grows to what is in flight, as a
        review's does: the requests cannot together pass the hold and the daily limits."""
        await deps.budget.reserve(installation_id, repo, job_id, held_usd, held_tokens)

    reviewer = deps.reviewer(job_id, tools, gate)
    answer, usage, _ = await reviewer.converse([*messages, thread_message(asked, bot)], affinity, parse_answer,
                                               ANSWER_FORMATS, what="thread answer")
    return answer_body(answer), usage

