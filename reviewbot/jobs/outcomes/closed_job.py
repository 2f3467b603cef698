"""record_outcomes: when a pull request closes, every finding reviewbot posted on it gets its outcome, read from
the review threads (resolved, by whom), the commits' `Reviewbot-Fix:` trailers and the comments' reactions."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from reviewbot.app.identity import known_slug
from reviewbot.errors import PermanentError, RetryableError
from reviewbot.jobs.commands.refusal import MAY_SPEND
from reviewbot.jobs.learn.detect import queue_proposals
from reviewbot.jobs.outcomes.recording import count
from reviewbot.observe.metrics import Batch
from reviewbot.outcomes.classify import ThreadState, at_close, sealed_fixes
from reviewbot.outcomes.outcome_store import OutcomeStore
from reviewbot.outcomes.records import FindingRecord
from reviewbot.queue import retries
from reviewbot.review.findings.fingerprints import read_marker
from reviewbot.state import keys

if TYPE_CHECKING:
    from reviewbot.app.port import GitHubPort
    from reviewbot.app.threads import ReviewThread
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)
MAX_ROLE_READS = 20  # people whose 👎 on one comment are checked for write access (a pile-on costs no more)


async def record_outcomes(ctx: dict[str, Any], installation_id: int, repo: str, number: int, head_sha: str,
                          merged: bool) -> dict[str, Any]:
    """Idempotent: a second run finds the same threads and trailers and decides the same; counters count a
    record's outcome only when it changes. A pull request reviewbot posted nothing on costs no GitHub call."""
    deps: Deps = ctx["deps"]
    redis = ctx["redis"]
    store = OutcomeStore(redis)
    records = await store.of_pull(installation_id, repo, number)
    fields = {"repo": repo, "pr": number, "sha": head_sha[:12], "merged": merged}
    if not records:
        return {"outcome": "nothing posted"}
    port = deps.installation_port(installation_id)
    job_id = str(ctx.get("job_id") or keys.outcomes_job_id(repo, number, head_sha))
    try:
        threads = await _threads(port, repo, number, records, deps.settings.marker_key())
        fixes = sealed_fixes(await port.pull_commit_messages(repo, number), repo, deps.settings.marker_key())
    except RetryableError as exc:  # GitHub unavailable: later, with the job queue's backoff
        log.warning("outcomes not read yet; retrying", extra={**fields, "error": str(exc)})
        await retries.retry_later(redis, job_id, exc, first_s=deps.settings.retry_delay)
        return {"outcome": "failed", "reason": str(exc)}  # the findings stay undecided
    except PermanentError as exc:  # the repository or pull request is gone, or the App lost access
        log.warning("outcomes not read", extra={**fields, "error": str(exc)})
        return {"outcome": "failed", "reason": str(exc)}
    finally:
        port.close()
    await retries.forget(redis, job_id)
    slug = await known_slug(deps.settings, redis)
    now = time.time()
    bot = f"{slug}[bot]" if slug else ""
    pairs = await store.update(installation_id, repo, [r.field for r in records],
                               lambda r: at_close(r, threads.get(r.fingerprint), merged=merged, fixes=fixes, bot=bot,
                                                  now=now))
    closed = [new for _, new in pairs]
    batch = Batch()
    count(batch, pairs)
    await batch.send(redis)
    await queue_proposals(redis, installation_id, repo, deps.settings.learning_ttl_days)
    tally: dict[str, int] = {}
    for record in closed:
        tally[record.outcome] = tally.get(record.outcome, 0) + 1
    log.info("outcomes recorded", extra={**fields, **tally})
    return {"outcome": "recorded", "findings": len(closed), **tally}


async def _threads(port: GitHubPort, repo: str, number: int, records: list[FindingRecord],
                   key: bytes) -> dict[str, ThreadState]:
    """Each recorded finding's thread, found by its authenticated marker, with the reactions on its comment."""
    wanted = {r.fingerprint for r in records}
    found: dict[str, ThreadState] = {}
    roles: dict[str, str] = {}  # one permission read per person who gave a 👎
    for thread in await port.review_threads(repo, number):
        fp = _fingerprint(thread, key)
        if fp is None or fp not in wanted or fp in found:
            continue
        comment_id = thread["comments"][0]["database_id"]
        reactions = await port.review_comment_reactions(repo, comment_id) if comment_id else []
        down = sorted({who for content, who in reactions if content == "-1" and who})
        for who in down[:MAX_ROLE_READS]:
            if who not in roles:
                roles[who] = await port.permission(repo, who)
        found[fp] = ThreadState(comment_id=comment_id, is_resolved=thread["is_resolved"],
                                resolved_by=thread["resolved_by"],
                                thumbs_up=sum(content == "+1" for content, _ in reactions),
                                thumbs_down=sum(content == "-1" for content, _ in reactions),
                                disliked_by=tuple(w for w in down if roles.get(w) in MAY_SPEND))
    return found


def _fingerprint(thread: ReviewThread, key: bytes) -> str | None:
    keys = read_marker(thread["comments"][0]["body"], key) if thread["comments"] else None
    return keys[0] if keys else None
