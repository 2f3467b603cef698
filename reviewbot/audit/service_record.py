"""A service audit's record and its chunks' results, typed, each with the one JSON form `AuditStore` keeps in Redis."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from reviewbot.model import Usage

# A review `Finding.model_dump()`, kept as stored: `Finding`'s own dump decides its shape (evidence left out when
# empty), and the code that needs the type validates it there (`audit_findings` for SARIF and the tracking issue,
# `distinct` for fingerprints). The answer's text, the ledger and the baseline read its keys as they are.
FindingJson = dict[str, Any]


def _known(cls: type[Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of dataclass `cls` in `data`. A key the type does not know is left out (the counts a test or an
    older `recent()` caller saved back); a missing one takes the field's default (written before the field was)."""
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in data.items() if k in names}


@dataclass(frozen=True)
class PlannedChunk:
    """One chunk as planned: its files and the estimate (its request is rendered from the plan, `load_plan`)."""

    index: int
    paths: list[str]
    tokens: int
    estimate_usd: float
    estimate_tokens: int = 0  # not in the first records


@dataclass(frozen=True)
class Publication:
    """Where a finished audit's findings went and, for code scanning, whether GitHub processed the upload."""

    # code-scanning, issue (the tracking issue), comment (a pull request's answer only), advisory (a public
    # repository's private draft advisory), withheld (a public repository's, kept in the record only), none (failed)
    where: str
    status: str  # processing (GitHub at work on the upload), complete, edited (issue or comment), failed
    results: int = 0
    sarif_id: str | None = None
    issue_number: int | None = None
    new: int = 0  # findings new since the last audit of the scope (tracking issue)
    cut: list[str] = field(default_factory=list)  # what GitHub's limits left out
    reason: str = ""  # why code scanning was not used
    errors: list[str] = field(default_factory=list)
    analyses_url: str | None = None  # once GitHub processed the upload
    advisory_id: str | None = None  # the draft advisory's GHSA id
    # findings (`path:line`) whose alerts people dismissed in code scanning: uploaded, listed and counted nowhere
    dismissed: list[str] = field(default_factory=list)


Outcome = Literal["more code", "unverified"]


@dataclass(frozen=True)
class CodeAsk:
    """A candidate its verifier could not check with the code shown: what it named, and what came of it."""

    title: str
    path: str
    line: int
    needs: tuple[str, ...]
    outcome: Outcome  # checked again with that code / published unverified, lacking it

    def as_json(self) -> dict[str, Any]:
        return {"title": self.title, "path": self.path, "line": self.line, "needs": list(self.needs),
                "outcome": self.outcome}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CodeAsk:
        outcome: Outcome = "more code" if data.get("outcome") == "more code" else "unverified"
        return cls(str(data["title"]), str(data["path"]), int(data["line"]), tuple(data.get("needs") or ()), outcome)


@dataclass(frozen=True)
class AuditUsage:
    """What all chunks and verifications of an audit spent; floats throughout, as the record has always stored them."""

    prompt_tokens: float = 0.0
    cached_tokens: float = 0.0
    completion_tokens: float = 0.0
    cost_usd: float = 0.0
    requests: float = 0.0
    async_requests: float = 0.0

    @classmethod
    def of(cls, usage: Usage) -> AuditUsage:
        return cls(float(usage.prompt_tokens), float(usage.cached_tokens), float(usage.completion_tokens),
                   float(usage.cost_usd), float(usage.requests), float(usage.async_requests))

    def as_usage(self) -> Usage:
        return Usage(prompt_tokens=int(self.prompt_tokens), cached_tokens=int(self.cached_tokens),
                     completion_tokens=int(self.completion_tokens), requests=int(self.requests),
                     async_requests=int(self.async_requests), cost_usd=float(self.cost_usd))


@dataclass(frozen=True)
class AuditRecord:
    """One service audit, from its plan (`plan_job`) to its publication (`finish_job`, `upload_status`), saved whole
    and updated with `dataclasses.replace`. Every record has the fields without a default; the others are missing
    from records planned by older code (plan fields) or not finished yet (totals, publication)."""

    id: str
    installation_id: int
    repo: str
    branch: str  # a branch, or a pull request's refs/pull/N/head
    sha: str
    paths: list[str]  # the scope asked for; empty: the whole repository
    status: str  # running, done
    created: float
    model: str
    # The repository's RepoConfig as JSON (`model_dump`), validated again where the finish reads it (`batches`).
    config: dict[str, Any]
    chunks: list[PlannedChunk]
    estimate_usd: float
    blobs: dict[str, str]  # audited path → blob id: what the branch's next incremental audit compares with
    base_branch: str = ""  # whose last audit an incremental one starts from, and the category's branch
    repo_url: str = ""
    visibility: str = ""  # GitHub's (public, private, internal); an older record's "" is read as public
    in_diff: list[str] = field(default_factory=list)  # a pull request's findings on lines it changes (path:line)
    full: bool = False
    incremental: bool = False
    trigger: str = ""
    number: int | None = None  # the issue or pull request whose comment asked for the audit
    comment_id: int | None = None  # the answer there, edited as the audit runs
    max_usd: float | None = None
    left_out: list[str] = field(default_factory=list)  # past `max_usd`
    tree_notes: list[str] = field(default_factory=list)  # files whose names the extracted tree could not hold
    unchanged: int = 0
    related: int = 0
    carried: list[FindingJson] = field(default_factory=list)  # the unchanged files' findings, carried forward
    gone: list[str] = field(default_factory=list)  # deleted since the branch's last audit
    parsed: int = 0
    # The totals, from the finish.
    files: int = 0
    candidates: int = 0
    duplicates: int = 0
    dropped: list[tuple[str, str]] = field(default_factory=list)  # (title, why) of the refuted candidates
    unverified: int = 0
    code_asks: list[CodeAsk] = field(default_factory=list)  # candidates whose verifier asked for more code
    not_audited: dict[str, str] = field(default_factory=dict)  # chunk index (as text) → why
    usage: AuditUsage = field(default_factory=AuditUsage)
    evidence_dropped: int = 0
    spent_usd: float = 0.0
    carried_count: int = 0
    # Where the findings went.
    findings: list[FindingJson] = field(default_factory=list)
    category: str = ""
    publication: Publication | None = None
    published: str = ""  # `published_text` of the publication
    finished: float | None = None

    def as_json(self) -> dict[str, Any]:
        """What `AuditStore.save` writes (every field, under the names the record has always had)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AuditRecord:
        """A record as any version wrote it (`as_json`, or the dict the jobs built before the record was typed)."""
        publication = data.get("publication")
        return cls(**_known(cls, data) | {
            "chunks": [PlannedChunk(**_known(PlannedChunk, c)) for c in data["chunks"]],
            "dropped": [(str(title), str(why)) for title, why in data.get("dropped") or []],
            "usage": AuditUsage(**_known(AuditUsage, data.get("usage") or {})),
            "code_asks": [CodeAsk.from_json(a) for a in data.get("code_asks") or []],
            "publication": Publication(**_known(Publication, publication)) if publication else None})


@dataclass(frozen=True)
class ChunkResult:
    """What an audited chunk stored (`AuditStore.settle`): its candidates, for the finish to merge and verify."""

    findings: list[FindingJson]
    evidence_dropped: int = 0  # the model's evidence lines that named no line of the tree
    outside: int = 0  # candidates in files this audit does not review
    usage: Usage = field(default_factory=Usage)
    partial: list[tuple[str, str]] = field(default_factory=list)  # (path, why): files audited in part

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ChunkResult:
        return cls(**_known(cls, data) | {
            "usage": Usage(**_known(Usage, data.get("usage") or {})),
            "partial": [(str(path), str(why)) for path, why in data.get("partial") or []]})


@dataclass(frozen=True)
class ListedAudit:
    """An audit as `AuditStore.recent` lists it for the dashboard and `reviewbot audit status`."""

    record: AuditRecord
    chunks_done: int
    chunks_failed: int
    spent_usd: float  # a running audit's: what its chunks done cost so far; else the record's total
