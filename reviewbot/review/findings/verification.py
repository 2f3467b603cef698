"""The verification pass, pure: which findings are checked, the request that checks them, what the verdicts leave."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewbot.model import Usage
from reviewbot.review.diff.newtext import head_text
from reviewbot.review.diff.parse import ParsedDiff
from reviewbot.review.findings.evidence_excerpt import evidence_excerpt
from reviewbot.review.findings.schema import SEVERITY_RANK, Finding, OutputInvalid, Severity, first_json

VerifyPolicy = Literal["off", "major", "all"]
VERIFY_HEADER = "## Verification of candidate findings"
CANDIDATE_HEADING = re.compile(r"^### Candidate (\d+): (.*)$", re.MULTILINE)  # one per candidate, as written below
BATCH = 20  # candidates per verification request
RADIUS = 12  # lines of code shown on each side of a candidate
# "needs_code": only an audit's verifier is offered it (AUDIT_VERIFY_SCHEMA); a review's schema stays as it was.
Verdict = Literal["confirm", "refute", "downgrade", "needs_code"]


class VerdictItem(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: int = Field(ge=1)
    verdict: Verdict
    severity: Severity | None = None
    reason: str = Field(default="", max_length=4_000)
    needs: tuple[str, ...] = Field(default=(), max_length=20)  # the files or symbols a "needs_code" verdict names


# Hand-written for stable bytes, like REVIEW_SCHEMA; it is sent in the verification message only.
VERIFY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdicts": {"type": "array", "items": {
        "type": "object",
        "properties": {"id": {"type": "integer", "minimum": 1},
                       "verdict": {"type": "string", "enum": ["confirm", "refute", "downgrade"]},
                       "severity": {"type": ["string", "null"], "enum": ["critical", "major", "minor", "nit", None]},
                       "reason": {"type": "string"}},
        "required": ["id", "verdict", "severity", "reason"], "additionalProperties": False}}},
    "required": ["verdicts"],
    "additionalProperties": False,
}
INSTRUCTIONS = """{header}

A first review of this pull request proposed the candidate findings below. Check each one against the code \
(the excerpts show the new version of the file; use the tools to read callers, definitions or tests when you \
need them) and decide:
- "confirm": the problem is real and the severity is right;
- "downgrade": the problem is real but less severe; give the new severity;
- "refute": the problem is not real (the code handles it, the premise is wrong, or it cannot happen).
Give a one-sentence reason for each. Judge only what the code shows; when you cannot confirm a finding, refute \
it. Answer with one JSON object with a verdict for every candidate id, matching this JSON Schema (it replaces \
the review schema for this answer):
{schema}"""


@dataclass(frozen=True)
class VerifyAnswer:
    verdicts: tuple[VerdictItem, ...]
    usage: Usage
    model: str


@dataclass(frozen=True)
class Checks:
    """What the precision policy did to one review's findings, for its summary."""

    checked: int = 0
    confirmed: int = 0
    downgraded: int = 0
    dropped: tuple[tuple[str, str], ...] = ()  # (title, reason) of refuted candidates
    unchecked: tuple[str, ...] = ()  # titles posted unverified because their verification could not run
    passes: int = 1
    merged: int = 0  # duplicates merged across passes
    failed_passes: int = 0  # extra passes whose answer was unusable (the others' findings stand)


def needs_check(finding: Finding, policy: VerifyPolicy, threshold: Severity) -> bool:
    """Candidates are findings that would be posted: at or above the threshold, and in the policy's range."""
    rank = SEVERITY_RANK[finding.severity]
    if policy == "off" or rank > SEVERITY_RANK[threshold]:
        return False
    return policy == "all" or rank <= SEVERITY_RANK["major"]


def parse_verdicts(text: str | None, ids: Sequence[int]) -> list[VerdictItem]:
    """Validate a verification answer; every candidate id must have exactly one verdict."""
    data = first_json(text or "")
    if not isinstance(data, dict) or not isinstance(data.get("verdicts"), list):
        raise OutputInvalid('the answer is not a JSON object with a "verdicts" list; reply with that object only')
    try:
        items = [VerdictItem.model_validate(v) for v in data["verdicts"]]
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:20])
        raise OutputInvalid(f"a verdict does not match the schema: {problems}") from exc
    seen = {v.id: v for v in items if v.id in ids}
    if missing := [i for i in ids if i not in seen]:
        raise OutputInvalid("verdicts are missing for candidate ids " + ", ".join(map(str, missing)))
    return [seen[i] for i in ids]


def verification_messages(messages: list[dict[str, str]], candidates: Sequence[Finding], diff: ParsedDiff,
                          read_base: Callable[[str], str | None], *, instructions: str | None = None,
                          extras: Sequence[str] = ()) -> list[dict[str, str]]:
    """The review's own messages (the cached prefix, unchanged) and one more user message with the candidates;
    `extras[i]`, when given, follows candidate i+1 (an audit's code of the candidate's flow)."""
    parts = [instructions or INSTRUCTIONS.format(header=VERIFY_HEADER, schema=json.dumps(
        VERIFY_SCHEMA, sort_keys=True, separators=(",", ":")))]
    for number, finding in enumerate(candidates, 1):
        where = f"{finding.path} line {finding.start_line}-{finding.line}" if finding.start_line else \
            f"{finding.path} line {finding.line}"
        shown = {k: v for k, v in finding.model_dump().items() if k in ("severity", "category", "body", "cwe")}
        evidence = evidence_excerpt(finding, read_base)  # audits' findings only: reviews' carry none
        parts.append(f"### Candidate {number}: {' '.join(finding.title.split())}\n\n{where} ({finding.side}), "
                     f"{json.dumps(shown, ensure_ascii=False)}\n\n{_excerpt(finding, diff, read_base)}"
                     + (f"\n\n{evidence}" if evidence else "")
                     + (f"\n\n{extras[number - 1]}" if len(extras) >= number and extras[number - 1] else ""))
    return [*messages, {"role": "user", "content": "\n\n".join(parts)}]


def _excerpt(finding: Finding, diff: ParsedDiff, read_base: Callable[[str], str | None]) -> str:
    """Numbered lines around the finding, `>` on its own lines: the new file (or the old one for LEFT)."""
    file = diff.file(finding.path)
    base_path = file.old_path if file is not None else finding.path
    base = read_base(base_path) if base_path else None
    text = base if finding.side == "LEFT" or file is None else head_text(file, base)
    if text is None:
        return "(the file's text is not available; use read_file)"
    lines = text.split("\n")
    first = finding.start_line or finding.line
    low, high = max(first - RADIUS, 1), min(finding.line + RADIUS, len(lines))
    if low > high:
        return f"(line {finding.line} is past the end of the file, which has {len(lines)} lines)"
    body = "\n".join(f"{'>' if first <= n <= finding.line else ' '}{n:>5}  {lines[n - 1]}"
                     for n in range(low, high + 1))
    return "```\n" + body.replace("```", "`\u200b``") + "\n```"


def apply_verdicts(candidates: Sequence[Finding], verdicts: Sequence[VerdictItem]) -> tuple[list[Finding], Checks]:
    """Confirmed ones stay, downgraded ones stay with the lower severity, refuted ones are dropped (with why)."""
    by_id = {v.id: v for v in verdicts}
    kept: list[Finding] = []
    confirmed = downgraded = 0
    dropped: list[tuple[str, str]] = []
    unchecked: list[str] = []
    for number, finding in enumerate(candidates, 1):
        verdict = by_id.get(number)
        if verdict is not None and verdict.verdict == "needs_code":  # not checked: never refuted for lack of code
            kept.append(finding.model_copy(update={"unverified": True}))
            unchecked.append(finding.title)
            continue
        if verdict is None or verdict.verdict == "refute":
            dropped.append((finding.title, verdict.reason if verdict else "no verdict"))
            continue
        lower = verdict.severity is not None and SEVERITY_RANK[verdict.severity] > SEVERITY_RANK[finding.severity]
        if verdict.verdict == "downgrade" and lower:
            note = f"\n\n_Checked by a second look: downgraded from {finding.severity}. {verdict.reason}_".rstrip()
            kept.append(finding.model_copy(update={"severity": verdict.severity, "body": finding.body + note}))
            downgraded += 1
        else:
            kept.append(finding)
            confirmed += 1
    return kept, Checks(checked=len(candidates), confirmed=confirmed, downgraded=downgraded, dropped=tuple(dropped),
                        unchecked=tuple(unchecked))
