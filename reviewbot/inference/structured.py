"""Findings as structured output over a tool loop: schema forms, fenced JSON, one repair turn, bounded turns."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from reviewbot.errors import ModelOutputError, ModelPermanent
from reviewbot.inference.allowance import Allowance, Gate, Hold
from reviewbot.inference.client import ChatResult, ModelClient
from reviewbot.inference.grammar_form import grammar_schema
from reviewbot.inference.memo import RequestMemo
from reviewbot.model import ModelAnswer, Usage
from reviewbot.review.findings.schema import (
    REVIEW_NONEMPTY,
    REVIEW_OPTIONAL,
    REVIEW_SCHEMA,
    OutputInvalid,
    ReviewOutput,
    parse_review_output,
)
from reviewbot.review.prompt.images import with_images

log = logging.getLogger(__name__)
T = TypeVar("T")



def response_formats(name: str, schema: dict[str, Any], optional: Collection[str] = (),
                     nonempty: Collection[str] = ()) -> tuple[dict[str, Any], ...]:
    """The response_format shapes to try, strictest first; each fits the model's published input schema, which
    requires `json_schema.name`. Then the schema without strict mode; then JSON mode with the schema beside it,
    which llama.cpp's server turns into a grammar where it refuses json_schema — trimmed to what a grammar
    follows cheaply, the `optional` properties not forced, the `nonempty` strings at least one character
    (grammar_form); then plain JSON mode. The prompt
    carries the full schema either way, and the answer is validated against it."""
    return (
        {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}},
        {"type": "json_schema", "json_schema": {"name": name, "schema": schema}},
        {"type": "json_object", "schema": grammar_schema(schema, optional, nonempty)},
        {"type": "json_object"},
    )


RESPONSE_FORMATS = response_formats("review", REVIEW_SCHEMA, REVIEW_OPTIONAL, REVIEW_NONEMPTY)
FINAL_TURN = "Stop using tools now and answer with the JSON object only."
# A truncated answer (finish_reason "length") is asked again once with a larger output limit (a reasoning model's
# counts its reasoning too, hence the floor), within the model's context window; a second truncation ends the
# review with a clear error. A model the catalogue does not know gets twice the room only: its window is a guess,
# and a self-hosted server on a CPU writes 32k tokens in hours.
LENGTH_RETRY_FLOOR = 32_768


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
    formats: tuple[dict[str, Any], ...] = RESPONSE_FORMATS  # the answer's schema forms (audits ask for more)
    allowance: Allowance = field(init=False)

    def __post_init__(self) -> None:
        self.allowance = Allowance(self.token_budget, self.client.max_completion_tokens or 16_000,
                                   self.client.prices.get(self.client.model))

    def fresh(self) -> StructuredReviewer:
        """The same reviewer with an unspent allowance, for the next review or the next attempt at one (an
        attempt replays the earlier attempts' answers from the memo, and they count again)."""
        return dataclasses.replace(self)

    async def review(self, messages: list[dict[str, str]], affinity: str) -> ModelAnswer[ReviewOutput]:
        output, usage, model = await self.converse(messages, affinity, parse_review_output, self.formats)
        return ModelAnswer(output, usage, model)

    async def converse(self, messages: list[dict[str, str]], affinity: str, parse: Callable[[str | None], T],
                       formats: tuple[dict[str, Any], ...], what: str = "review") -> tuple[T, Usage, str]:
        """Tool turns until a final answer that `parse` accepts (one repair turn); `formats` are the
        response_format shapes, in the order RESPONSE_FORMATS tries them (the verifier has its own)."""
        conversation: list[dict[str, Any]] = list(messages)
        usage, turns, repaired = Usage(), 0, False
        limit: int | None = None  # the output limit, raised once after a truncated answer
        while True:
            final = self.tools is None or turns >= self.max_turns
            hold = self.allowance.estimate(self._chars(conversation, final), limit)
            if not final and not self.allowance.room_for_tools(hold):
                final = True  # no room for another tool turn and the answer after it: answer now
                hold = self.allowance.estimate(self._chars(conversation, final), limit)
            try:
                result = await self._paid(self.allowance.take(hold, what), conversation, affinity, final, formats,
                                         limit)
            except ModelPermanent as exc:  # the turns before were paid for: the caller must still count them
                exc.usage = usage + exc.usage
                raise
            usage = usage + result.usage
            if result.finish_reason == "length":
                limit = self._larger_limit(result, limit, what, usage)
                log.warning("model answer truncated, asking again with a larger output limit",
                            extra={"max_completion_tokens": limit})
                continue
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
                    formats: tuple[dict[str, Any], ...], limit: int | None) -> ChatResult:
        """One request under its hold: the daily budget is asked first; the hold settles with the billed usage."""
        try:
            if self.gate is not None:
                await self.gate(self.allowance.held, self.allowance.held_usd)
            result = await self._ask(conversation, affinity, final, formats, limit)
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

    def _larger_limit(self, result: ChatResult, limit: int | None, what: str, usage: Usage) -> int:
        """Twice what the truncated answer used (at least LENGTH_RETRY_FLOOR for a reasoning model, twice the
        configured limit for another), within the context window left after the prompt; ModelOutputError when it
        was raised already or cannot grow."""
        used = result.usage.completion_tokens or limit or self.client.max_completion_tokens or 0
        caps = self.client.capabilities
        room = caps.context_window - result.usage.prompt_tokens
        floor = LENGTH_RETRY_FLOOR if caps.reasoning else 2 * (self.client.max_completion_tokens or 0)
        larger = min(max(2 * used, floor), room)
        if limit is not None or larger <= used:
            raise ModelOutputError(
                f"the model's {what} answer was cut off at its output limit ({used:,} tokens, reasoning included)"
                f"{' twice' if limit is not None else ''}: raise REVIEWBOT_MAX_COMPLETION_TOKENS, set "
                "REVIEWBOT_MODEL_THINKING=off, or review a smaller change", usage=usage)
        return larger

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
                   formats: tuple[dict[str, Any], ...], limit: int | None = None) -> ChatResult:
        tools = self.tools.definitions() if self.tools is not None else None
        conversation = with_images(conversation, self.images or [])
        messages = [*conversation, {"role": "user", "content": FINAL_TURN}] if final and tools else conversation
        while True:
            form_index = self.client.form_index
            body = self.client.body(messages, formats[form_index], tools, "none" if final else "auto", limit)
            try:
                return await self.client.chat(body, affinity=affinity, memo=self.memo)
            except ModelPermanent as exc:
                if (self.client.max_tokens_alias and exc.invalid_input and not exc.context_length
                        and "max_tokens" in str(exc)):
                    log.warning("the server refused max_tokens; sending max_completion_tokens alone")
                    self.client.max_tokens_alias = False
                    continue
                # Only a complaint about the request's shape may be this schema form; try the next before giving
                # up. Other 400s (no such model, incomplete request, ...) would pin the weakest form for nothing.
                if not exc.invalid_input or form_index == len(formats) - 1 or exc.context_length:
                    raise
                log.warning("provider rejected response_format, trying the next form", extra={"form": form_index})
                self.client.form_index = form_index + 1
