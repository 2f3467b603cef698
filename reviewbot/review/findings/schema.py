"""The Finding schema: the model's structured output, the CLI's JSON and the internal type."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
)

from reviewbot.review.findings.cwe import normalize_cwe
from reviewbot.review.findings.wire_schema import FINDING_SCHEMA as FINDING_SCHEMA
from reviewbot.review.findings.wire_schema import REVIEW_SCHEMA as REVIEW_SCHEMA

Severity = Literal["critical", "major", "minor", "nit"]
Category = Literal["bug", "security", "performance", "maintainability", "style", "test"]
SEVERITY_RANK: dict[str, int] = {"critical": 0, "major": 1, "minor": 2, "nit": 3}
EvidenceRole = Literal["source", "step", "sink"]


class EvidenceStep(BaseModel):
    """One line an audit's answer gives as evidence (untrusted: the audit checks path and line against the tree).
    A malformed item is kept as `path=""`, so the audit counts it among those it drops."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    path: str = ""
    line: int = 0
    role: EvidenceRole = "step"
    note: str = ""


class Finding(BaseModel):
    """One review comment the model proposes, anchored by GitHub's review-comment semantics."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    path: str = Field(min_length=1)
    line: int = Field(ge=1)
    start_line: int | None = Field(default=None, ge=1)
    side: Literal["RIGHT", "LEFT"] = "RIGHT"
    severity: Severity
    category: Category
    title: str = Field(min_length=1, max_length=300)
    body: str
    suggestion: str | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    cwe: str | None = None  # security findings: the CWE id, "CWE-89"
    # Set by reviewbot (never in the model's schema): a candidate whose verification could not run is posted
    # anyway, labelled, rather than silently dropped.
    unverified: bool = False
    # Audits only (their schema asks for it; the review schema does not): source → sink lines, as the model gave
    # them. Left out of dumps when empty, so a review's JSON is what it was.
    evidence: tuple[EvidenceStep, ...] = ()

    @field_validator("evidence", mode="before")
    @classmethod
    def _evidence(cls, value: object) -> tuple[EvidenceStep, ...]:
        """Lenient: a bad item never invalidates the answer (no repair turn for it); it is kept empty and dropped,
        counted, by the audit."""
        if not isinstance(value, list | tuple):
            return ()
        out = []
        for item in value:
            try:
                out.append(item if isinstance(item, EvidenceStep) else EvidenceStep.model_validate(item))
            except ValidationError:
                out.append(EvidenceStep())
        return tuple(out)

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not data.get("evidence"):
            data.pop("evidence", None)
        return data

    @field_validator("cwe", mode="before")
    @classmethod
    def _cwe(cls, value: object) -> str | None:
        return normalize_cwe(value)

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        return value.removeprefix("./")


class FileNote(BaseModel):
    """One row of the walkthrough table: what changed in a file."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    path: str
    summary: str


class IssueVerdict(BaseModel):
    """Whether the change does what a linked issue asks: `#12`, partly, what is missing."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    issue: str = Field(max_length=200)
    addressed: Literal["yes", "partly", "no", "unclear"]
    note: str = Field(default="", max_length=1_000)


class ReviewOutput(BaseModel):
    """The whole answer: an overall summary, a walkthrough of the files, the findings and, when the prompt shows
    linked issues, whether the change addresses each (optional: answers without it are valid)."""

    model_config = ConfigDict(extra="ignore")

    summary: str
    walkthrough: list[FileNote] = Field(default_factory=list)
    findings: list[Finding]
    issues: list[IssueVerdict] = Field(default_factory=list)

    @field_validator("issues", mode="before")
    @classmethod
    def _usable(cls, value: object) -> list[Any]:
        """A malformed verdict is dropped, never a reason to ask again: the findings are what the review is for."""
        if not isinstance(value, list):
            return []
        kept = []
        for item in value:
            try:
                kept.append(IssueVerdict.model_validate(item))
            except ValidationError:
                continue
        return kept


class OutputInvalid(ValueError):
    """The model's text is not a valid ReviewOutput; `errors` is sent back in a repair turn."""

    def __init__(self, errors: str) -> None:
        super().__init__(errors)
        self.errors = errors


# Fields the answer may leave out (pydantic fills their defaults), by property name: a grammar-constrained server
# is given them as optional (reviewbot.inference.grammar_form). No name is optional in one object and required in
# another (a test checks).
REVIEW_OPTIONAL: frozenset[str] = frozenset(
    name for model in (ReviewOutput, FileNote, Finding, IssueVerdict)
    for name, spec in model.model_fields.items() if not spec.is_required())

# Strings the validation requires non-empty (a finding's path and title), by property name: a grammar-constrained
# server is told so (`minLength: 1` costs a grammar one character rule), or a small model writes "" and fails.
REVIEW_NONEMPTY: frozenset[str] = frozenset(
    name for model in (ReviewOutput, FileNote, Finding, IssueVerdict)
    for name, spec in model.model_fields.items()
    if any(getattr(rule, "min_length", 0) >= 1 for rule in spec.metadata))

_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)\n?```", re.DOTALL)


def parse_review_output(text: str | None) -> ReviewOutput:
    """Validate the model's answer: bare JSON, a fenced ```json block, or JSON inside prose."""
    if not text or not text.strip():
        raise OutputInvalid("the answer was empty; reply with the JSON object only")
    data = first_json(text)
    if data is None:
        raise OutputInvalid("the answer is not valid JSON; reply with one JSON object matching the schema")
    if isinstance(data, list):
        data = {"summary": "", "findings": data}
    try:
        return ReviewOutput.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:20])
        raise OutputInvalid(f"the JSON does not match the schema: {problems}") from exc


def first_json(text: str) -> Any:
    candidates = [text.strip(), *(m.group(1) for m in _FENCE.finditer(text))]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start:end + 1])
    for candidate in candidates:
        try:
            # strict=False: raw control characters inside strings (a newline a model wrote as is, which llama.cpp's
            # JSON grammar lets through) are read as the text they mean instead of failing the whole answer.
            return json.loads(candidate, strict=False)
        except ValueError:
            continue
    return None
