"""A review waited for in-process while the provider's queue holds it: for callers that cannot defer a job."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from reviewbot.errors import ModelQueued
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.inference.verify_request import StructuredVerifier
from reviewbot.review.engine import ReviewInput, ReviewResult, run_review


def answer_polling(on_wait: Callable[[ModelQueued], None]
                   ) -> Callable[[ReviewInput, StructuredReviewer], Awaitable[ReviewResult]]:
    """run_review, asked again after each wait the provider names (10 s when it names none); the answers that came
    through the queue replay from the reviewer's memo, so each attempt pays only for what is new."""

    async def answer(review_input: ReviewInput, reviewer: StructuredReviewer) -> ReviewResult:
        while True:
            attempt = reviewer.fresh()  # the replayed answers of the last attempt count again
            try:
                return await run_review(review_input, attempt, StructuredVerifier(attempt))
            except ModelQueued as exc:
                on_wait(exc)
                await asyncio.sleep(exc.retry_after or 10.0)

    return answer
