"""The `reviewbot` check run's life: queued → in_progress → completed, reused across retries of a job."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

from reviewbot.app.port import GitHubPort
from reviewbot.errors import PermanentError, RetryableError
from reviewbot.review.publish.markdown import neutralize
from reviewbot.state import keys

log = logging.getLogger(__name__)
CHECK_NAME = "reviewbot"
RERUN_ACTION = {"label": "Re-review", "description": "Review the whole pull request again",
                "identifier": "rereview"}
# Shown when fixes are on and the review left fixable findings (GitHub: label ≤ 20, description ≤ 40, id ≤ 20).
FIX_ACTION = {"label": "Fix", "description": "Fix the open findings, checked first", "identifier": "fix"}


class CheckRun:
    """One check run per (repository, head SHA); its id is kept in Redis so a retried job updates it."""

    def __init__(self, port: GitHubPort, redis: Any, repo: str, head_sha: str, number: int, *,
                 adopt: bool = False, fixes: bool = False) -> None:
        self.port, self.redis, self.repo, self.head_sha, self.number = port, redis, repo, head_sha, number
        self.id: int | None = None
        self.adopt = adopt  # a re-run: an earlier attempt may have created the run without recording its id
        self.fixes = fixes  # the operator turned fixes on: a review with fixable findings offers the Fix button

    async def open(self, status: str, title: str, summary: str) -> int:
        key = keys.check_run_key(self.repo, self.head_sha)
        existing = await self.redis.get(key) if self.redis is not None else None
        if not existing and self.adopt:
            existing = await self.port.open_check_run(self.repo, self.head_sha, CHECK_NAME, str(self.number))
        body = {"status": status, "output": {"title": title, "summary": summary}}
        if existing:
            self.id = int(existing)
            await self.port.update_check_run(self.repo, self.id, body)
            if self.redis is not None:
                await self.redis.set(key, str(self.id), ex=keys.STATE_TTL)
            return self.id
        self.id = await self.port.create_check_run(self.repo, {
            "name": CHECK_NAME, "head_sha": self.head_sha, "external_id": str(self.number),
            "started_at": now(), **body})
        if self.redis is not None:
            await self.redis.set(key, str(self.id), ex=keys.STATE_TTL)
        return self.id

    async def update(self, status: str, title: str, summary: str) -> None:
        if self.id is not None:
            await self.port.update_check_run(self.repo, self.id, {"status": status,
                                                                  "output": {"title": title, "summary": summary}})

    async def complete(self, conclusion: str, title: str, summary: str,
                       annotations: list[dict[str, Any]] | None = None, *, fixable: bool = False) -> None:
        """End it with a conclusion; annotations go 50 per request (GitHub's limit), appended by PATCH. The Fix
        button is offered when fixes are on and the review left `fixable` findings."""
        if self.id is None:
            self.id = await self.open("in_progress", title, summary)
        pending = annotations or []
        batches = [pending[i:i + 50] for i in range(0, len(pending), 50)] or [[]]
        output: dict[str, Any] = {"title": title, "summary": summary[:65_000]}
        await self.port.update_check_run(self.repo, self.id, {
            "status": "completed", "conclusion": conclusion, "completed_at": now(),
            "output": {**output, "annotations": batches[0]},
            "actions": [RERUN_ACTION, *([FIX_ACTION] if fixable and self.fixes else [])]})
        for batch in batches[1:]:
            await self.port.update_check_run(self.repo, self.id, {"output": {**output, "annotations": batch}})
        if self.redis is not None:
            await self.redis.delete(keys.check_run_key(self.repo, self.head_sha),
                                    keys.check_result_key(self.repo, self.head_sha))

    async def complete_if_open(self, conclusion: str, title: str, summary: str) -> None:
        """End the run an earlier try of this job opened, if there is one; never open one for this."""
        key = keys.check_run_key(self.repo, self.head_sha)
        existing = await self.redis.get(key) if self.redis is not None else None
        if not existing and self.adopt:
            existing = await self.port.open_check_run(self.repo, self.head_sha, CHECK_NAME, str(self.number))
        if existing:
            self.id = int(existing)
            await self.complete(conclusion, title, summary)

    async def remember(self, conclusion: str, title: str, summary: str) -> None:
        """Keep the planned result until the run is completed, so a job re-run after a crash between posting
        the review and completing the check can still complete it truthfully."""
        if self.redis is not None:
            await self.redis.set(keys.check_result_key(self.repo, self.head_sha),
                                 json.dumps([conclusion, title, summary]), ex=keys.STATE_TTL)

    async def complete_remembered(self) -> bool:
        """Complete a run left open by a crashed job with the result it had planned; False if none."""
        if self.redis is None:
            return False
        raw, existing = await self.redis.get(keys.check_result_key(self.repo, self.head_sha)), \
            await self.redis.get(keys.check_run_key(self.repo, self.head_sha))
        if not raw or not existing:
            return False
        conclusion, title, summary = json.loads(raw)
        self.id = int(existing)
        await self.complete(conclusion, title, summary)
        return True

    async def fail(self, reason: str) -> None:
        """Never `success` for a review that did not happen; and never raise while reporting a failure."""
        summary = f"reviewbot could not review this pull request.\n\n**Reason:** {neutralize(reason)}"
        try:
            await self.complete("neutral", "Review failed", summary)
        except (RetryableError, PermanentError) as exc:
            log.error("could not mark the check run failed", extra={"repo": self.repo, "error": str(exc)})


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
