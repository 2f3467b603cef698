"""The model request of a thread answer: the review's own prompt (same bytes, same affinity) plus the thread."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reviewbot.app.bigdiff import load_diff
from reviewbot.inference.tools import RepoTools
from reviewbot.queue.gates import load_config
from reviewbot.queue.sources import base_snapshot
from reviewbot.review.config import context_options
from reviewbot.review.diff.parse import parse_diff
from reviewbot.review.engine import ReviewInput, affinity_id, prepare
from reviewbot.review.prompt.sections import PromptInput
from reviewbot.review.prompt.thread import (
    ANSWER_FORMATS,
    Thread,
    answer_body,
    comment_pairs,
    excerpt,
    parse_answer,
    thread_message,
)
from reviewbot.stores import RedisStores, pr_layout_key

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.model import Usage
    from reviewbot.queue.worker import Deps


async def ask_model(deps: Deps, port: GitHubPort, redis: Any, installation_id: int, repo: str, number: int,
                    thread: list[dict[str, Any]], job_id: str, bot: str) -> tuple[str, Usage]:
    """Rebuild the prompt the review sent (its remembered layout keeps the context blocks and their order), add
    the thread as the last turn, and ask on the review's session: the shared prefix comes from the cache."""
    pull = await port.get_pull(repo, number)
    loaded = await load_config(port, repo, pull.base_ref)
    diff_text, _ = await load_diff(port, repo, number, pull.base_sha, pull.head_sha)
    diff = parse_diff(diff_text)
    snapshot, root = await base_snapshot(deps, port, repo, pull, diff)
    stores = RedisStores(redis)
    calibration = await stores.calibration(deps.settings.model)
    tools = RepoTools(root) if root is not None and deps.settings.max_tool_turns > 0 else None
    options = context_options(loaded.config, deps.settings.prompt_budget, [f.path for f in diff.files],
                              tools=tools is not None)
    prompt = PromptInput(title=pull.title, description=pull.body, diff=diff, base_files={}, snapshot=snapshot,
                         options=options, chars_per_token=calibration.chars_per_token)
    affinity = affinity_id("pr", installation_id, repo, number)
    review_input = ReviewInput(prompt=prompt, affinity=affinity,
                               previous_layout=await stores.load_layout(pr_layout_key(repo, number)))
    messages = (await _plan(review_input)).prompt.messages
    root_comment = thread[0]
    line = root_comment.get("line") or root_comment.get("original_line")
    path = str(root_comment.get("path") or "")
    head_text = await port.get_file(repo, path, pull.head_sha) if path else None
    asked = Thread(path=path, line=int(line) if isinstance(line, int) else None, comments=comment_pairs(thread),
                   head_excerpt=excerpt(head_text, int(line) if isinstance(line, int) else None))
    reviewer = deps.reviewer(job_id, tools)
    answer, usage, _ = await reviewer.converse([*messages, thread_message(asked, bot)], affinity, parse_answer,
                                               ANSWER_FORMATS, what="thread answer")
    return answer_body(answer), usage


async def _plan(review_input: ReviewInput) -> Any:
    import asyncio

    return await asyncio.to_thread(prepare, review_input)
