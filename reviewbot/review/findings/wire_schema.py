"""The review answer's JSON Schema as the prompt and the provider see it, apart from the pydantic models."""

from __future__ import annotations

from typing import Any

# Hand-written (not generated) so the bytes stay identical across pydantic versions: it sits in the
# cached prefix of every prompt.
FINDING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "line": {"type": "integer", "minimum": 1},
        "start_line": {"type": ["integer", "null"], "minimum": 1},
        "side": {"type": "string", "enum": ["RIGHT", "LEFT"]},
        "severity": {"type": "string", "enum": ["critical", "major", "minor", "nit"]},
        "category": {"type": "string",
                     "enum": ["bug", "security", "performance", "maintainability", "style", "test"]},
        "title": {"type": "string"},
        "body": {"type": "string"},
        "suggestion": {"type": ["string", "null"]},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "cwe": {"type": ["string", "null"]},
    },
    "required": ["path", "line", "start_line", "side", "severity", "category", "title", "body",
                 "suggestion", "confidence", "cwe"],
    "additionalProperties": False,
}
WALKTHROUGH_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {"type": "object", "properties": {"path": {"type": "string"}, "summary": {"type": "string"}},
              "required": ["path", "summary"], "additionalProperties": False},
}
# Strict structured output wants every property required: `issues` is [] when the prompt shows no linked issue.
ISSUES_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {"type": "object",
              "properties": {"issue": {"type": "string"},
                             "addressed": {"type": "string", "enum": ["yes", "partly", "no", "unclear"]},
                             "note": {"type": "string"}},
              "required": ["issue", "addressed", "note"], "additionalProperties": False},
}
REVIEW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"summary": {"type": "string"}, "walkthrough": WALKTHROUGH_SCHEMA,
                   "findings": {"type": "array", "items": FINDING_SCHEMA}, "issues": ISSUES_SCHEMA},
    "required": ["summary", "walkthrough", "findings", "issues"],
    "additionalProperties": False,
}
