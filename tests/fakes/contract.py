"""The pinned Workers AI model schemas (specs/workers-ai/) as validators for the fake model: requests and answers."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

SPECS = Path(__file__).resolve().parents[2] / "specs" / "workers-ai"


@dataclass(frozen=True)
class Contract:
    """One model's published input (the chat-completions "Messages" form) and JSON output schemas."""

    spec: dict[str, Any]
    request: Draft202012Validator
    response: Draft202012Validator

    @property
    def async_queue(self) -> bool:
        return str(self.spec["properties"].get("async_queue")).lower() == "true"

    def request_errors(self, body: Any) -> list[str]:
        return [_describe(e) for e in self.request.iter_errors(body)]

    def response_errors(self, body: Any) -> list[str]:
        return [_describe(e) for e in self.response.iter_errors(body)]


def _describe(error: Any) -> str:
    where = "/".join(str(p) for p in error.absolute_path) or "/"
    best = error
    for sub in error.context or ():  # for oneOf/anyOf, the deepest reason reads best
        if len(sub.absolute_path) >= len(best.absolute_path):
            best = sub
    return f"at {where}: {best.message[:300]}"


def _contract(spec: dict[str, Any]) -> Contract:
    schema = spec["schema"]["input"]
    # The published input is anyOf(direct request, batch wrapper); the batch wrapper has no required keys, so it
    # would accept anything. A chat-completions body is held to the direct "Messages" form it must match.
    chat = {"$defs": schema["$defs"], "$ref": "#/$defs/messages"}
    Draft202012Validator.check_schema(chat)
    return Contract(spec, Draft202012Validator(chat), Draft202012Validator(spec["schema"]["output"]))


def load() -> dict[str, Contract]:
    contracts = {}
    for path in sorted(SPECS.glob("*.json")):
        spec = json.loads(path.read_text(encoding="utf-8"))
        contracts[spec["name"]] = _contract(spec)
    return contracts


CONTRACTS = load()
