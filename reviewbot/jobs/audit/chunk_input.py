"""What a chunk's requests are built from, the same in every worker and every try: the tree at the audited commit
(from the repository cache), the prefix and context planned in the record, and a reviewer that prefers the
provider's queue."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reviewbot.audit.answer_schema import AUDIT_FORMATS
from reviewbot.audit.chunkprompt import Prefix, render_chunk
from reviewbot.audit.chunks import Chunk
from reviewbot.audit.contextblock import Block
from reviewbot.audit.service_record import AuditRecord
from reviewbot.errors import AlreadySettled, PermanentError, RetryableError
from reviewbot.inference.allowance import Gate
from reviewbot.inference.memo import RedisMemo
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.inference.tools import RepoTools
from reviewbot.repos.cache import RepoCache
from reviewbot.review.engine import affinity_id

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.jobs.deps import Deps

MAX_ARCHIVE_BYTES = 500_000_000


@contextlib.asynccontextmanager
async def audit_tree(deps: Deps, port: GitHubPort, repo: str, sha: str) -> AsyncIterator[Path]:
    """The tree at the audited commit: downloaded once per worker, then shared by all its chunks; leased while the
    block runs, so the cache's eviction (for another commit, in any worker) never deletes it under a job."""
    cache = RepoCache(deps.settings.data_dir / "repos", deps.settings.repo_cache_mb * 1_000_000)

    async def download(dest: Path) -> None:
        await port.download_tarball(repo, sha, dest, MAX_ARCHIVE_BYTES)

    async with cache.leased(repo, sha, download) as tree:
        yield tree


def chunk_request(record: AuditRecord, plan: dict[str, Any] | None, index: int,
                  read: Callable[[str], str | None]) -> list[dict[str, str]]:
    """Chunk `index`'s messages from the audit's plan (`AuditStore.load_plan`): its prefix (the same bytes for every
    chunk), the chunk's files read from the tree and the context blocks planned with it (no parse, no call graph:
    that was the planning job's)."""
    if plan is None:
        raise PermanentError("the audit's plan is gone (expired, or planned by an earlier version): audit again")
    planned = record.chunks[index]
    texts = {p: read(p) for p in planned.paths}  # read once: the check below and the rendering share them
    # A file the plan read and the tree no longer holds: never a request without it, counted as audited.
    if missing := [p for p, text in texts.items() if text is None]:
        raise RetryableError(f"{len(missing)} file(s) of the chunk could not be read from the cached tree "
                             f"({', '.join(missing[:5])}{', …' if len(missing) > 5 else ''})")
    prefix = Prefix(plan["prefix"]["system"], plan["prefix"]["head"])
    chunk = Chunk(index, tuple(planned.paths), int(planned.tokens))
    blocks = [Block.from_json(b) for b in plan["context"][index]]
    elided = plan.get("elided") or [{} for _ in record.chunks]  # a plan from before elision: none
    ranges = {p: tuple((int(a), int(b)) for a, b in r) for p, r in elided[index].items()}
    return render_chunk(prefix, chunk, len(record.chunks), lambda p: texts[p] if p in texts else read(p), blocks,
                        ranges)


def audit_affinity(record: AuditRecord) -> str:
    """One affinity per repository, branch and scope, not per audit: every chunk's prefix (system prompt,
    checklist, tools, overview) lands on one cache, and the next audit of the branch (an incremental re-audit
    sends the same prefix bytes when the overview did not change) reads it from there instead of paying again.
    Computed from the record alone: a poll of the provider's queue asks without loading the plan."""
    return affinity_id("audit", record.repo, record.branch or record.base_branch, *sorted(record.paths))


async def still_waiting(deps: Deps, redis: Any, scope: str, record: AuditRecord) -> float | None:
    """Seconds until the next poll while a request of `scope` is still in the provider's queue (polled by its id,
    without building any prompt); None when nothing waits and the job may build its requests."""
    client, memo = deps.client, RedisMemo(redis, scope)
    for key, request_id in await memo.waiting():
        if not await client.answered(memo, key, request_id, audit_affinity(record)):
            return client.async_poll_s
    return None


def audit_reviewer(deps: Deps, redis: Any, scope: str, root: Path, gate: Gate | None,
                   settled: Callable[[], Awaitable[bool]] | None = None) -> StructuredReviewer:
    """The provider's queue first (a model without one is asked directly, within the rate limit); the memo in
    Redis lets whichever worker runs the next try poll the queued request instead of paying for it again.
    `settled` is asked right before each paid request, after the lease (fencing): a stale try of the same job that
    collected its answer and stored the outcome meanwhile has also cleared the memo, so this try would pay again."""
    fenced = deps.client.before_request

    async def before_paying() -> None:
        if fenced is not None:
            await fenced()
        if settled is not None and await settled():
            raise AlreadySettled("another try of this job stored its outcome")

    client = dataclasses.replace(deps.client, prefer_async=True, before_request=before_paying)
    return StructuredReviewer(client, memo=RedisMemo(redis, scope), tools=RepoTools(root),
                              max_turns=deps.settings.max_tool_turns, token_budget=deps.settings.review_token_budget,
                              gate=gate, formats=AUDIT_FORMATS)
