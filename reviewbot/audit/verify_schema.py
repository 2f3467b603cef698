"""What an audit's verifier is asked to answer: the review's verdicts plus "needs_code", naming the code it needs,
and the instructions that offer it. A review's verification keeps VERIFY_SCHEMA and its wording unchanged."""

from __future__ import annotations

import json
from typing import Any

from reviewbot.inference.structured import response_formats
from reviewbot.review.findings.verification import INSTRUCTIONS, VERIFY_HEADER, VERIFY_SCHEMA

_ITEM = VERIFY_SCHEMA["properties"]["verdicts"]["items"]
# The review's verdict schema plus "needs_code" and the `needs` it names, built from it the same way every time and
# sent sorted, so every verification of every audit carries the same bytes; an answer without `needs` still parses.
AUDIT_VERIFY_SCHEMA: dict[str, Any] = {**VERIFY_SCHEMA, "properties": {"verdicts": {"type": "array", "items": {
    **_ITEM,
    "properties": {**_ITEM["properties"],
                   "verdict": {"type": "string", "enum": ["confirm", "refute", "downgrade", "needs_code"]},
                   "needs": {"type": "array", "maxItems": 5, "items": {"type": "string"}}},
    "required": [*_ITEM["required"], "needs"]}}}}
AUDIT_VERIFY_FORMATS = response_formats("verification", AUDIT_VERIFY_SCHEMA)
NEEDS_CODE = """- "needs_code": the code shown does not let you decide (the sink, a callee or a caller is not \
shown); name the files or functions you need in "needs" (e.g. "db/helpers.py" or "run_query"); "needs" is [] for \
every other verdict.
"""
# The review's wording, with the fourth verdict, and "cannot confirm" no longer meaning "refute": a finding whose
# sink is in code not shown is asked about again with that code, not dropped.
AUDIT_INSTRUCTIONS = INSTRUCTIONS.replace("Give a one-sentence", NEEDS_CODE + "Give a one-sentence").replace(
    "when you cannot confirm a finding, refute it.",
    "refute a finding the code shown contradicts or does not support, never only because code it depends on is "
    "not shown.").format(header=VERIFY_HEADER, schema=json.dumps(AUDIT_VERIFY_SCHEMA, sort_keys=True,
                                                                 separators=(",", ":")))
