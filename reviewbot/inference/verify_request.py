"""The verification request: the review's cached prefix plus the candidates, the same tools, verdicts validated."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reviewbot.inference.structured import StructuredReviewer, response_formats
from reviewbot.review.findings.verification import VERIFY_SCHEMA, VerdictItem, VerifyAnswer, parse_verdicts

# The same three shapes as the review's, in the same order: the client's remembered form index applies to both.
VERIFY_FORMATS: tuple[dict[str, Any], ...] = response_formats("verification", VERIFY_SCHEMA)


@dataclass
class StructuredVerifier:
    """Checks a batch of candidates in one conversation; shares the reviewer's client, memo, tools and budgets,
    so the request carries the same tool definitions and affinity and replays from the same memo."""

    reviewer: StructuredReviewer
    formats: tuple[dict[str, Any], ...] = VERIFY_FORMATS  # an audit's add its "needs_code" verdict

    async def verify(self, messages: list[dict[str, str]], ids: Sequence[int], affinity: str) -> VerifyAnswer:
        def parse(text: str | None) -> list[VerdictItem]:
            return parse_verdicts(text, ids)

        verdicts, usage, model = await self.reviewer.converse(messages, affinity, parse, self.formats,
                                                              what="verification")
        return VerifyAnswer(tuple(verdicts), usage, model)
