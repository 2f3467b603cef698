"""Findings as structured output: schema forms the provider accepts, fenced JSON, one repair turn."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from reviewbot.errors import ModelOutputError, ModelPermanent
from reviewbot.inference.client import ChatResult, ModelClient
from reviewbot.inference.pricing import Usage
from reviewbot.review.engine import ModelAnswer
from reviewbot.review.findings import REVIEW_SCHEMA, OutputInvalid, parse_review_output

log = logging.getLogger(__name__)

# The OpenAI envelope first (documented for /v1/chat/completions), then the bare schema some Workers AI
# routes expect, then plain JSON mode; the prompt carries the schema either way.
RESPONSE_FORMATS: tuple[dict[str, Any], ...] = (
    {"type": "json_schema", "json_schema": {"name": "review", "schema": REVIEW_SCHEMA, "strict": True}},
    {"type": "json_schema", "json_schema": REVIEW_SCHEMA},
    {"type": "json_object"},
)


@dataclass
class StructuredReviewer:
    """Asks the model for a ReviewOutput and validates it; remembers which schema form the provider took."""

    client: ModelClient
    form_index: int = 0

    async def review(self, messages: list[dict[str, str]], affinity: str) -> ModelAnswer:
        conversation: list[dict[str, Any]] = list(messages)
        usage = Usage()
        repaired = False
        while True:
            result = await self._ask(conversation, affinity)
            usage = usage + result.usage
            try:
                return ModelAnswer(parse_review_output(result.content), usage, result.model)
            except OutputInvalid as exc:
                if repaired:
                    raise ModelOutputError(f"the model's answer was not valid review JSON after a repair "
                                           f"turn: {exc.errors}") from None
                repaired = True
                log.warning("model output invalid, asking for a repair", extra={"error": exc.errors[:200]})
                conversation += [
                    {"role": "assistant", "content": result.content or ""},
                    {"role": "user", "content": "Your answer was not valid: " + exc.errors
                     + ". Reply again with only the corrected JSON object."},
                ]

    async def _ask(self, conversation: list[dict[str, Any]], affinity: str) -> ChatResult:
        while True:
            form = RESPONSE_FORMATS[self.form_index]
            try:
                return await self.client.chat(conversation, affinity=affinity, response_format=form)
            except ModelPermanent as exc:
                # A 400 may be the provider rejecting this schema form; try the next before giving up.
                if exc.status != 400 or self.form_index == len(RESPONSE_FORMATS) - 1:
                    raise
                log.warning("provider rejected response_format, trying the next form",
                            extra={"form": self.form_index})
                self.form_index += 1
