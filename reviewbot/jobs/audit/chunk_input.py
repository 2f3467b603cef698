"""What a chunk's requests are built from, the same in every worker and every try: the tree at the audited commit
(from the repository cache), the chunk's files shown as added, and a reviewer that prefers the provider's queue."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reviewbot.audit.answer_schema import AUDIT_FORMATS
from reviewbot.audit.chunks import Without, added_diff
from reviewbot.inference.allowance import Gate
from reviewbot.inference.memo import RedisMemo
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.inference.tools import RepoTools
from reviewbot.repos.cache import DirSnapshot, RepoCache
from reviewbot.review.config import RepoConfig, context_options, precision
from reviewbot.review.diff.parse import parse_diff
from reviewbot.review.engine import ReviewInput, affinity_id
from reviewbot.review.prompt.sections import PromptInput

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps

MAX_ARCHIVE_BYTES = 500_000_000
DESCRIPTION = ("Not a pull request: a security audit of existing code. Every file of this part is shown as added, "
               "so that all of it is reviewed; judge the code as it is.")


async def audit_tree(deps: Deps, port: GitHubPort, repo: str, sha: str) -> Path:
    """The tree at the audited commit: downloaded once per worker, then shared by all its chunks."""
    cache = RepoCache(deps.settings.data_dir / "repos", deps.settings.repo_cache_mb * 1_000_000)

    async def download(dest: Path) -> None:
        await port.download_tarball(repo, sha, dest, MAX_ARCHIVE_BYTES)

    return await cache.checkout(repo, sha, download)


def chunk_input(deps: Deps, record: dict[str, Any], snapshot: DirSnapshot, index: int) -> ReviewInput:
    chunk = record["chunks"][index]
    paths = list(chunk["paths"])
    config = RepoConfig.model_validate(record["config"])
    files = {p: text for p in paths if (text := snapshot.read(p)) is not None}
    options = context_options(config, deps.settings.prompt_budget, paths, tools=True)
    where = ", ".join(record["paths"]) or "the repository"
    prompt = PromptInput(title=f"Security audit of {where}, part {index + 1} of {len(record['chunks'])}",
                         description=DESCRIPTION, diff=parse_diff(added_diff(files)), base_files={},
                         snapshot=Without(snapshot, paths), options=options)
    return ReviewInput(prompt=prompt, affinity=audit_affinity(record), precision=precision(config))


def audit_affinity(record: dict[str, Any]) -> str:
    """One affinity per audit: every chunk's prefix (system prompt, checklist, tools) lands on one cache."""
    return affinity_id("audit", record["repo"], record["id"])


async def still_waiting(deps: Deps, redis: Any, scope: str, record: dict[str, Any]) -> float | None:
    """Seconds until the next poll while a request of `scope` is still in the provider's queue (polled by its id,
    without building any prompt); None when nothing waits and the job may build its requests."""
    client, memo = deps.client, RedisMemo(redis, scope)
    for key, request_id in await memo.waiting():
        if not await client.answered(memo, key, request_id, audit_affinity(record)):
            return client.async_poll_s
    return None


def audit_reviewer(deps: Deps, redis: Any, scope: str, root: Path, gate: Gate | None) -> StructuredReviewer:
    """The provider's queue first (a model without one is asked directly, within the rate limit); the memo in
    Redis lets whichever worker runs the next try poll the queued request instead of paying for it again."""
    client = dataclasses.replace(deps.client, prefer_async=True)
    return StructuredReviewer(client, memo=RedisMemo(redis, scope), tools=RepoTools(root),
                              max_turns=deps.settings.max_tool_turns, token_budget=deps.settings.review_token_budget,
                              gate=gate, formats=AUDIT_FORMATS)
