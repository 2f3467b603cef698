"""rerun_suite: "Re-run all checks" on a fork's pull request, whose check suite names no pull request."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from reviewbot.jobs.pr_review.checkrun import CHECK_NAME
from reviewbot.queue.enqueue import enqueue_review
from reviewbot.queue.request import ReviewRequest

if TYPE_CHECKING:
    from reviewbot.jobs.deps import Deps

log = logging.getLogger(__name__)
MAX_PULLS = 5  # a commit is the head of a handful of pull requests at most; more would be a forged suite


async def rerun_suite(ctx: dict[str, Any], installation_id: int, repo: str, head_sha: str,
                      suite_id: int) -> dict[str, Any]:
    """Our check runs in the suite carry their pull request's number as `external_id` (GitHub leaves the suite's
    `pull_requests` empty for a fork): each number gets the re-run a check run's Re-run button would."""
    deps: Deps = ctx["deps"]
    port = deps.installation_port(installation_id)
    try:
        external = await port.suite_external_ids(repo, suite_id, CHECK_NAME)
    finally:
        port.close()
    numbers = sorted({int(e) for e in external if e.isascii() and e.isdigit() and 0 < int(e) < 2**31})
    queued = [n for n in numbers[:MAX_PULLS]
              if await enqueue_review(ctx["redis"], ReviewRequest(installation_id, repo, n, head_sha,
                                                                  trigger="rerun", run=f"suite-{suite_id}"))
              == "queued"]
    log.info("check suite re-run", extra={"repo": repo, "suite": suite_id, "pulls": numbers, "queued": queued})
    return {"outcome": "queued" if queued else "no pull request", "pulls": numbers}
