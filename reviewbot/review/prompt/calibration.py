"""Chars-per-token calibration: no Kimi tokenizer ships offline, so the provider's usage teaches the ratio."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reviewbot.review.prompt.sections import CHARS_PER_TOKEN

MIN_CPT, MAX_CPT = 1.5, 8.0  # outside this the sample is broken (an empty prompt, a provider bug), not code
ALPHA = 0.2  # weight of a new sample once a few are in: follows drift without jumping on one odd prompt


@dataclass(frozen=True)
class Calibration:
    """A moving average of characters per prompt token for one model."""

    chars_per_token: float = CHARS_PER_TOKEN
    samples: int = 0

    def observe(self, prompt_chars: int, prompt_tokens: int) -> Calibration:
        """Fold in one request: the characters sent and the prompt_tokens the provider counted."""
        if prompt_chars <= 0 or prompt_tokens <= 0:
            return self
        observed = min(MAX_CPT, max(MIN_CPT, prompt_chars / prompt_tokens))
        weight = max(ALPHA, 1.0 / (self.samples + 1))  # the first samples count fully, then a moving average
        value = (1 - weight) * self.chars_per_token + weight * observed
        return Calibration(chars_per_token=round(value, 4), samples=self.samples + 1)

    def observe_estimate(self, estimated_tokens: int, prompt_tokens: int) -> Calibration:
        """The same from an estimate made with this calibration: estimated·cpt characters were sent."""
        return self.observe(round(estimated_tokens * self.chars_per_token), prompt_tokens)

    def as_json(self) -> dict[str, Any]:
        return {"chars_per_token": self.chars_per_token, "samples": self.samples}

    @classmethod
    def from_json(cls, data: Any) -> Calibration:
        try:
            cpt = float(data["chars_per_token"])
            samples = int(data["samples"])
        except (KeyError, TypeError, ValueError):
            return cls()
        return cls(min(MAX_CPT, max(MIN_CPT, cpt)), max(0, samples))


def prompt_chars(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None) -> int:
    """Characters of what a request sends as prompt: message contents and the tool definitions."""
    total = sum(len(m.get("content") or "") for m in messages)
    total += sum(len(json.dumps(c.get("function", {}).get("arguments", ""))) for m in messages
                 for c in m.get("tool_calls") or [])
    if tools:
        total += len(json.dumps(list(tools), separators=(",", ":"), sort_keys=True))
    return total
