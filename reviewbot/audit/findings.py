"""An audit's finding as it is published (SARIF, the tracking issue), pure: where, what, how bad, the evidence."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from reviewbot.review.findings.cwe import normalize_cwe
from reviewbot.review.findings.fingerprints import code_key, normalize_code, normalize_title
from reviewbot.review.findings.schema import SEVERITY_RANK, Finding

Severity = Literal["critical", "major", "minor", "nit"]
Role = Literal["source", "step", "sink"]
ROLE_ORDER: dict[str, int] = {"source": 0, "step": 1, "sink": 2}


@dataclass(frozen=True)
class Evidence:
    """One line that shows the bug, in this file or another: where the input enters, a step, the sink."""

    path: str
    line: int
    note: str = ""
    role: Role = "step"


@dataclass(frozen=True)
class AuditFinding:
    """One distinct, deduplicated finding of an audit. `evidence` runs from source to sink (the finding's own
    location is the primary one, the sink unless the evidence names another); `fingerprint` is its identity across
    audits (code key of the anchored lines); `occurrence` tells identical code in one file apart (`occurrence_of`)."""

    path: str
    start_line: int
    end_line: int
    title: str
    cwe: str | None
    severity: Severity
    body: str
    fingerprint: str
    evidence: tuple[Evidence, ...] = field(default_factory=tuple)
    fix: str | None = None
    verified: bool = True
    occurrence: int = 1

    def __post_init__(self) -> None:
        if self.start_line < 1 or self.end_line < self.start_line:
            raise ValueError(f"bad line range {self.start_line}-{self.end_line} for {self.path}")
        object.__setattr__(self, "cwe", normalize_cwe(self.cwe))

    @property
    def rank(self) -> tuple[int, str, int, str, int]:
        """Most severe first, then by place: the deterministic order of every list and every cut."""
        return SEVERITY_RANK[self.severity], self.path, self.start_line, self.fingerprint, self.occurrence

    def as_dict(self) -> dict[str, Any]:
        """JSON-able (the audit's state in Redis, the JSON report); `from_dict` reads it back."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AuditFinding:
        evidence = tuple(Evidence(str(e["path"]), int(e["line"]), str(e.get("note") or ""),
                                  e.get("role") if e.get("role") in ROLE_ORDER else "step")
                         for e in data.get("evidence") or ())
        return cls(path=str(data["path"]), start_line=int(data["start_line"]), end_line=int(data["end_line"]),
                   title=str(data["title"]), cwe=data.get("cwe"), severity=data["severity"], body=str(data["body"]),
                   fingerprint=str(data["fingerprint"]), evidence=evidence, fix=data.get("fix"),
                   verified=bool(data.get("verified", True)), occurrence=int(data.get("occurrence") or 1))


def audit_fingerprint(path: str, cwe: str | None, code: Sequence[str], title: str = "") -> str:
    """The review's code key (whitespace-insensitive code of the anchored lines), per CWE: the same bug keeps
    it when lines move or the model rewords its title. Without the code, the normalised title stands in."""
    if any(line.strip() for line in code):
        return code_key(path, cwe or "security", list(code))
    return code_key(path, cwe or "security", [normalize_title(title)])


def occurrence_of(lines: Sequence[str], start: int, end: int) -> int:
    """1 + how many earlier places in the file hold the same code as lines start..end (whitespace-insensitive, as
    the fingerprint): CodeQL's `hash:N`. Counted over the file's text, not over findings, so it does not depend on
    which copies the model reported, and code added elsewhere leaves it alone."""
    size = end - start + 1
    code = normalize_code(lines[start - 1:end])
    if not code:
        return 1
    head = " ".join(lines[start - 1].split())  # a cheap first test: only places starting with the same line
    return 1 + sum(1 for at in range(start - 1)
                   if " ".join(lines[at].split()) == head and normalize_code(lines[at:at + size]) == code)


def evidence_of(finding: Finding, *more: Iterable[Evidence]) -> tuple[Evidence, ...]:
    """The evidence published with a finding: the model's (checked against the tree when its chunk was stored)
    first, then `more` (other sources of evidence), one per (path, line), ordered source → steps → sink (stable:
    each role keeps the order it was given in)."""
    found: dict[tuple[str, int], Evidence] = {}
    for e in [*(Evidence(s.path, s.line, s.note, s.role) for s in finding.evidence), *(e for m in more for e in m)]:
        found.setdefault((e.path, e.line), e)
    return tuple(sorted(found.values(), key=lambda e: ROLE_ORDER[e.role]))


def from_finding(finding: Finding, *, lines: Sequence[str] | None = None,
                 evidence: Sequence[Evidence] | None = None) -> AuditFinding:
    """A review finding (one chunk's answer) as an audit finding. `lines` is the file's text split into lines,
    to fingerprint the anchored code; `evidence` defaults to the model's own (`evidence_of`)."""
    start = finding.start_line if finding.start_line and finding.start_line <= finding.line else finding.line
    code = list(lines[start - 1:finding.line]) if lines is not None else []
    return AuditFinding(path=finding.path, start_line=start, end_line=finding.line, title=finding.title,
                        cwe=finding.cwe, severity=finding.severity, body=finding.body,
                        fingerprint=audit_fingerprint(finding.path, finding.cwe, code, finding.title),
                        evidence=evidence_of(finding) if evidence is None else tuple(evidence),
                        fix=finding.suggestion, verified=not finding.unverified,
                        occurrence=occurrence_of(lines, start, finding.line) if lines is not None else 1)
