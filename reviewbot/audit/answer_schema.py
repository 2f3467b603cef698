"""What an audit asks the model to answer: the review's finding plus its evidence lines (source → sink). Only
audits send it; the pull-request review's schema stays as it is (a grammar-constrained server chokes on more)."""

from __future__ import annotations

from typing import Any

from reviewbot.inference.structured import response_formats
from reviewbot.review.findings.schema import FINDING_SCHEMA, REVIEW_NONEMPTY, REVIEW_OPTIONAL

MAX_EVIDENCE = 6  # lines per finding: enough for source, a step or two and the sink; the schema says so too
# Hand-written, small and byte-stable like the review's: it sits in the cached prefix of every chunk. Strict
# structured output wants every property required: `evidence` is [] when the finding's own lines say it all.
EVIDENCE_SCHEMA: dict[str, Any] = {
    "type": "array",
    "maxItems": MAX_EVIDENCE,
    "items": {"type": "object",
              "properties": {"path": {"type": "string"}, "line": {"type": "integer", "minimum": 1},
                             "role": {"type": "string", "enum": ["source", "step", "sink"]},
                             "note": {"type": "string"}},
              "required": ["path", "line", "role", "note"], "additionalProperties": False},
}
AUDIT_FINDING_SCHEMA: dict[str, Any] = {
    **FINDING_SCHEMA,
    "properties": {**FINDING_SCHEMA["properties"], "evidence": EVIDENCE_SCHEMA},
    "required": [*FINDING_SCHEMA["required"], "evidence"],
}
# No walkthrough and no linked issues: an audit publishes neither, and each would cost output tokens per chunk.
AUDIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"summary": {"type": "string"}, "findings": {"type": "array", "items": AUDIT_FINDING_SCHEMA}},
    "required": ["summary", "findings"],
    "additionalProperties": False,
}
# A grammar-constrained server is not made to write the defaulted fields (evidence among them: pydantic fills []).
AUDIT_FORMATS: tuple[dict[str, Any], ...] = response_formats("audit", AUDIT_SCHEMA, REVIEW_OPTIONAL,
                                                                   REVIEW_NONEMPTY)
EVIDENCE_INSTRUCTIONS = """\
Evidence: for each finding, evidence lists the lines that show the bug, in order: where the untrusted input \
enters (role "source"), what carries it (role "step"), and where it does harm (role "sink"), each with the \
file's path, the line number as shown, and a short plain note (under 100 characters, no Markdown, no links), at \
most 6 lines. Give lines of other files when the input comes from or goes to another file; evidence is [] when \
the finding's own lines show it all."""
