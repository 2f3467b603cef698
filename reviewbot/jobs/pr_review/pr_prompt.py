"""A pull request's review input, built one way for the review and for a thread answer, so both share its prefix."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reviewbot.app.bigdiff import load_diff
from reviewbot.inference.tools import RepoTools
from reviewbot.jobs.pr_review.linked import linked_issues
from reviewbot.jobs.pr_review.sources import base_snapshot
from reviewbot.repos.dirsnapshot import DirSnapshot
from reviewbot.repos.index_store import SqliteIndex
from reviewbot.review.config import RepoConfig, context_options, precision
from reviewbot.review.diff.parse import ParsedDiff, parse_diff
from reviewbot.review.engine import ReviewInput, affinity_id
from reviewbot.review.prompt.sections import PromptInput
from reviewbot.state.prompt_stores import RedisLike, RedisStores, pr_layout_key

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort, PullInfo
    from reviewbot.settings import Settings


@dataclass(frozen=True)
class PrPrompt:
    review_input: ReviewInput
    diff: ParsedDiff
    unseen: tuple[str, ...]  # files whose diff GitHub would not give (too large)
    tools: RepoTools | None
    stores: RedisStores
    layout_key: str


async def pr_prompt(settings: Settings, port: GitHubPort, redis: RedisLike, installation_id: int, repo: str,
                    pull: PullInfo, config: RepoConfig, notes: tuple[str, ...] = ()) -> PrPrompt:
    """The diff, the base tree from the repository cache, the PR's last layout (to keep its prefix; in `redis`, the
    service's or the Action's in-memory stand-in) and the calibrated estimate; `notes` go to the prompt's last
    section, where they cost no cached prefix."""
    diff_text, unseen = await load_diff(port, repo, pull.number, pull.base_sha, pull.head_sha)
    diff = parse_diff(diff_text)
    # The linked issues are read while the base tree downloads: neither waits for the other.
    (snapshot, root), linked = await asyncio.gather(base_snapshot(settings, port, repo, pull, diff),
                                                    linked_issues(port, repo, pull,
                                                                  config.linked_issues.readable_repos))
    if isinstance(snapshot, DirSnapshot):  # files whose names the tree could not hold are named in the coverage
        notes = (*notes, *snapshot.notes())
    stores = RedisStores(redis)
    layout_key = pr_layout_key(repo, pull.number)
    calibration = await stores.calibration(settings.model)
    tools = RepoTools(root) if root is not None and settings.max_tool_turns > 0 else None
    options = context_options(config, settings.prompt_budget, [f.path for f in diff.files],
                              tools=tools is not None)
    prompt = PromptInput(title=pull.title, description=pull.body, diff=diff, base_files={}, snapshot=snapshot,
                         options=options, chars_per_token=calibration.chars_per_token, notes=notes,
                         index=SqliteIndex(settings.data_dir / "index") if root is not None else None,
                         linked=linked, repo=repo)
    review_input = ReviewInput(prompt=prompt, affinity=affinity_id("pr", installation_id, repo, pull.number),
                               previous_layout=await stores.load_layout(layout_key), precision=precision(config))
    return PrPrompt(review_input, diff, tuple(unseen), tools, stores, layout_key)
