"""Findings as structured output over a tool loop: schema forms, fenced JSON, one repair turn, bounded turns."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from reviewbot.errors import ModelOutputError, ModelPermanent
from reviewbot.inference.allowance import Allowance, Gate, Hold
from reviewbot.inference.client import ChatResult, ModelClient
from reviewbot.inference.memo import RequestMemo
from reviewbot.model import ModelAnswer, Usage
from reviewbot.review.findings.schema import REVIEW_SCHEMA, OutputInvalid, ReviewOutput, parse_review_output
from reviewbot.review.prompt.images import with_images

log = logging.getLogger(__name__)
T = TypeVar("T")

# The OpenAI envelope first (documented for /v1/chat/completions), then the bare schema some Workers AI
# routes expect, then plain JSON mode; the prompt carries the schema either way.
RESPONSE_FORMATS: tuple[dict[str, Any], ...] = (
    {"type": "json_schema", "json_schema": {"name": "review", "schema": REVIEW_SCHEMA, "strict": True}},
    {"type": "json_schema", "json_schema": REVIEW_SCHEMA},
    {"type": "json_object"},
)
FINAL_TURN = "Stop using tools now and answer with the JSON object only."


class Tools(Protocol):
    """Read-only repository tools; definitions must be byte-identical across turns and reviews."""

    def definitions(self) -> list[dict[str, Any]]: ...

    async def call(self, name: str, arguments: str) -> str: ...


@dataclass
class StructuredReviewer:
    """Review conversations: tool turns until a final answer, validated into a ReviewOutput. One reviewer serves
    one review: every conversation it holds (passes, verification batches) draws on the same token allowance."""

    client: ModelClient
    memo: RequestMemo | None = None
    tools: Tools | None = None
    max_turns: int = 8
    token_budget: int = 600_000  # tokens billed (prompt + completion) over the whole review
    gate: Gate | None = None  # the daily budget's hold, grown before each request
    images: list[dict[str, Any]] | None = None  # content parts added after the first user message's text
    allowance: Allowance = field(init=False)

    def __post_init__(self) -> None:
        self.allowance = Allowance(self.token_budget, self.client.max_completion_tokens or 16_000,
                                   self.client.prices.get(self.client.model))

    def fresh(self) -> StructuredReviewer:
        """The same reviewer with an unspent allowance, for the next review or the next attempt at one (an
        attempt replays the earlier attempts' answers from the memo, and they count again)."""
        return dataclasses.replace(self)

    async def review(self, messages: list[dict[str, str]], affinity: str) -> ModelAnswer[ReviewOutput]:
        output, usage, model = await self.converse(messages, affinity, parse_review_output, RESPONSE_FORMATS)
        return ModelAnswer(output, usage, model)

    async def converse(self, messages: list[dict[str, str]], affinity: str, parse: Callable[[str | None], T],
                       formats: tuple[dict[str, Any], ...], what: str = "review") -> tuple[T, Usage, str]:
        """Tool turns until a final answer that `parse` accepts (one repair turn); `formats` are the
        response_format shapes, in the order RESPONSE_FORMATS tries them (the verifier has its own)."""
        conversation: list[dict[str, Any]] = list(messages)
        usage, turns, repaired = Usage(), 0, False
        while True:
            final = self.tools is None or turns >= self.max_turns
            hold = self.allowance.estimate(self._chars(conversation, final))
            if not final and not self.allowance.room_for_tools(hold):
                final = True  # no room for another tool turn and the answer after it: answer now
                hold = self.allowance.estimate(self._chars(conversation, final))
            try:
                result = await self._paid(self.allowance.take(hold, what), conversation, affinity, final, formats)
            except ModelPermanent as exc:  # the turns before were paid for: the caller must still count them
                exc.usage = usage + exc.usage
                raise
            usage = usage + result.usage
            if result.tool_calls and not final:
                turns += 1
                conversation += await self._run_tools(result)
                continue
            try:
                return parse(result.content), usage, result.model
            except OutputInvalid as exc:
                if repaired:
                    raise ModelOutputError(f"the model's answer was not valid {what} JSON after a repair "
                                           f"turn: {exc.errors}", usage=usage) from None
                repaired = True
                log.warning("model output invalid, asking for a repair", extra={"error": exc.errors[:200]})
                conversation += [
                    {"role": "assistant", "content": result.content or ""},
                    {"role": "user", "content": "Your answer was not valid: " + exc.errors
                     + ". Reply again with only the corrected JSON object."},
                ]

    async def _paid(self, hold: Hold, conversation: list[dict[str, Any]], affinity: str, final: bool,
                    formats: tuple[dict[str, Any], ...]) -> ChatResult:
        """One request under its hold: the daily budget is asked first; the hold settles with the billed usage."""
        try:
            if self.gate is not None:
                await self.gate(self.allowance.held, self.allowance.held_usd)
            result = await self._ask(conversation, affinity, final, formats)
        except BaseException:
            self.allowance.release(hold)
            raise
        self.allowance.settle(hold, result.usage)
        return result

    def _chars(self, conversation: list[dict[str, Any]], final: bool) -> int:
        """The request's size in characters, as the estimate's input (its JSON, tool definitions included)."""
        size = len(json.dumps(conversation, ensure_ascii=False))
        if self.tools is not None:
            size += len(json.dumps(self.tools.definitions())) + (len(FINAL_TURN) + 30 if final else 0)
        return size

    async def _run_tools(self, result: ChatResult) -> list[dict[str, Any]]:
        assert self.tools is not None
        calls = [c for c in result.tool_calls if isinstance(c, dict)]
        appended: list[dict[str, Any]] = [{"role": "assistant", "content": result.content or "", "tool_calls": calls}]
        for call in calls:  # several per turn are allowed
            function = call.get("function") or {}
            name, arguments = str(function.get("name") or ""), function.get("arguments") or "{}"
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments)
            answer = await self.tools.call(name, arguments)
            appended.append({"role": "tool", "tool_call_id": str(call.get("id") or name), "content": answer})
        return appended

    async def _ask(self, conversation: list[dict[str, Any]], affinity: str, final: bool,
                   formats: tuple[dict[str, Any], ...]) -> ChatResult:
        tools = self.tools.definitions() if self.tools is not None else None
        conversation = with_images(conversation, self.images or [])
        messages = [*conversation, {"role": "user", "content": FINAL_TURN}] if final and tools else conversation
        while True:
            form_index = self.client.form_index
            body = self.client.body(messages, formats[form_index], tools, "none" if final else "auto")
            try:
                return await self.client.chat(body, affinity=affinity, memo=self.memo)
            except ModelPermanent as exc:
                # A 400 may be the provider rejecting this schema form; try the next before giving up.
                if exc.status != 400 or form_index == len(formats) - 1 or exc.context_length:
                    raise
                log.warning("provider rejected response_format, trying the next form", extra={"form": form_index})
                self.client.form_index = form_index + 1
