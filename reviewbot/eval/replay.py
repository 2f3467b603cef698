"""Recorded answers: an in-process model for `--model fake` (offline, deterministic), and the recorder behind
`--record` that saves a real model's answers in the same shape."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from reviewbot.model import ModelAnswer
from reviewbot.review.findings.schema import ReviewOutput
from reviewbot.review.findings.refine import ReviewerPort as Reviewer
from reviewbot.review.findings.passes import pass_number
from reviewbot.review.findings.refine import VerifierPort as Verifier
from reviewbot.review.findings.verification import CANDIDATE_HEADING, VERIFY_HEADER, VerifyAnswer

CHARS_PER_TOKEN = 4
CACHE_BLOCK = 64  # tokens: providers cache whole blocks of the prefix


def candidates(messages: Sequence[dict[str, Any]]) -> list[tuple[int, str]] | None:
    """(id, title) of a verification request's candidates; None for a review request."""
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str) and content.startswith(VERIFY_HEADER):
            return [(int(m.group(1)), m.group(2).strip()) for m in CANDIDATE_HEADING.finditer(content)]
    return None


@dataclass
class Replay:
    """Answers one case's requests from its recorded.json: `passes[i]` answers review pass i+1 (the last one
    repeats), `verdicts[title]` a verification (unnamed candidates are confirmed). Usage is estimated from the
    request text, with a prefix cache over this case's earlier requests, so tokens and cache ratios are real
    arithmetic on what was sent."""

    recorded: dict[str, Any] | None
    seen: list[str] = field(default_factory=list)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        content = self.answer(body["messages"])
        return httpx.Response(200, json={"model": body["model"], "usage": self._usage(body, content), "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}]})

    def answer(self, messages: Sequence[dict[str, Any]]) -> str:
        recorded = self.recorded or {}
        asked = candidates(messages)
        if asked is not None:
            verdicts = recorded.get("verdicts") or {}
            return json.dumps({"verdicts": [{"id": i, **verdicts.get(title, {"verdict": "confirm", "severity": None,
                                                                           "reason": "recorded: confirmed"})}
                                            for i, title in asked]})
        passes = recorded.get("passes") or [{"summary": "No recorded answer for this case.", "findings": []}]
        return json.dumps(passes[min(pass_number(messages), len(passes)) - 1])

    def _usage(self, body: dict[str, Any], content: str) -> dict[str, Any]:
        prompt = json.dumps({"tools": body.get("tools"), "messages": body["messages"]}, ensure_ascii=False)
        shared = max((common_prefix(prompt, earlier) for earlier in self.seen), default=0)
        self.seen.append(prompt)
        cached = shared // CHARS_PER_TOKEN // CACHE_BLOCK * CACHE_BLOCK
        tokens = math.ceil(len(prompt) / CHARS_PER_TOKEN)
        return {"prompt_tokens": tokens, "completion_tokens": math.ceil(len(content) / CHARS_PER_TOKEN),
                "prompt_tokens_details": {"cached_tokens": min(cached, tokens)}}


def common_prefix(a: str, b: str) -> int:
    """Characters two strings share from the start (binary search over slice comparisons: C speed)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


@dataclass
class Recorder:
    """Wraps the real reviewer and verifier and keeps what they answered, as recorded.json wants it."""

    reviewer: Reviewer
    verifier: Verifier
    passes: dict[int, dict[str, Any]] = field(default_factory=dict)
    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)

    async def review(self, messages: list[dict[str, str]], affinity: str) -> ModelAnswer[ReviewOutput]:
        answer = await self.reviewer.review(messages, affinity)
        self.passes[pass_number(messages)] = answer.output.model_dump()
        return answer

    async def verify(self, messages: list[dict[str, str]], ids: Sequence[int], affinity: str) -> VerifyAnswer:
        answer = await self.verifier.verify(messages, ids, affinity)
        titles = dict(candidates(messages) or [])
        for verdict in answer.verdicts:
            self.verdicts[titles.get(verdict.id, str(verdict.id))] = verdict.model_dump(exclude={"id"})
        return answer

    def recorded(self) -> dict[str, Any]:
        return {"passes": [self.passes[k] for k in sorted(self.passes)], "verdicts": self.verdicts}
