"""The fix answer's and the fix verdict's JSON Schemas, as the prompt and the provider see them, and their parsers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reviewbot.review.findings.schema import OutputInvalid, first_json

# Hand-written, like the review's answer schema (review/findings/wire_schema.py): the bytes stay the same.
EDIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "The file, relative to the repository root."},
        "old": {"type": "string", "description": "Exact text of the head version, occurring once in the file."},
        "new": {"type": "string", "description": "The text that replaces it."},
    },
    "required": ["path", "old", "new"],
    "additionalProperties": False,
}
FIX_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"explanation": {"type": "string"}, "edits": {"type": "array", "items": EDIT_SCHEMA}},
    "required": ["explanation", "edits"],
    "additionalProperties": False,
}
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"fixed": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["fixed", "reason"],
    "additionalProperties": False,
}
FIX_SCHEMA_NAME = "fix_edits"
VERDICT_SCHEMA_NAME = "fix_verdict"


def formats(name: str, schema: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """The response_format shapes, in the order the structured client tries them (as the thread answer's)."""
    return ({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}},
            {"type": "json_schema", "json_schema": schema}, {"type": "json_object"})


FIX_FORMATS = formats(FIX_SCHEMA_NAME, FIX_SCHEMA)
VERDICT_FORMATS = formats(VERDICT_SCHEMA_NAME, VERDICT_SCHEMA)
MAX_EDITS = 40


@dataclass(frozen=True)
class Edit:
    """Replace `old` (exact text of the head version, found once) by `new` in `path`."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Proposal:
    edits: tuple[Edit, ...]
    explanation: str


@dataclass(frozen=True)
class Verdict:
    fixed: bool
    reason: str


def parse_fix(text: str | None) -> Proposal:
    """The model's edits; a malformed answer gets one repair turn (OutputInvalid)."""
    data = first_json(text or "")
    if not isinstance(data, dict) or not isinstance(data.get("edits"), list):
        raise OutputInvalid('reply with one JSON object {"explanation": "...", "edits": [...]} matching the schema')
    edits = []
    for i, item in enumerate(data["edits"][:MAX_EDITS]):
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("path", "old", "new")):
            raise OutputInvalid(f"edits.{i}: each edit needs the strings path, old and new")
        edits.append(Edit(path=str(item["path"]).removeprefix("./"), old=item["old"], new=item["new"]))
    explanation = data.get("explanation")
    return Proposal(tuple(edits), explanation if isinstance(explanation, str) else "")


def parse_verdict(text: str | None) -> Verdict:
    data = first_json(text or "")
    if not isinstance(data, dict) or not isinstance(data.get("fixed"), bool):
        raise OutputInvalid('reply with one JSON object {"fixed": true|false, "reason": "..."}')
    reason = data.get("reason")
    return Verdict(bool(data["fixed"]), reason if isinstance(reason, str) else "")
