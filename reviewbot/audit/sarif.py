"""An audit as one SARIF 2.1.0 run for GitHub code scanning, pure: rules, results, evidence, fingerprints,
GitHub's limits (cut deterministically, most severe kept, every cut said) and the gzip + base64 upload form."""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from reviewbot.audit.findings import AuditFinding
from reviewbot.audit.sarif_results import result, safe_path
from reviewbot.audit.sarif_rules import rule, rule_id, sarif_text
from reviewbot.review.findings.alerts import TOOL_NAME

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True)
class Limits:
    """GitHub's documented limits for one upload ("SARIF results exceed limits")."""

    results: int = 25_000
    locations_per_result: int = 1_000
    thread_flow_locations: int = 10_000
    tags_per_rule: int = 20
    gzipped_bytes: int = 10 * 1024 * 1024


GITHUB_LIMITS = Limits()


@dataclass(frozen=True)
class Sarif:
    """The document, how many results it holds, and what was left out to stay inside the limits (in words)."""

    document: dict[str, Any]
    results: int
    cut: tuple[str, ...] = ()

    def text(self) -> str:
        return json.dumps(self.document, indent=1, ensure_ascii=False) + "\n"


class SarifTooLarge(ValueError):
    """Even an empty run is over the size limit: nothing to upload."""


def audit_category(branch: str) -> str:
    """`runs[].automationDetails.id`: one analysis per branch, whatever an audit's scope (a folder's audit uploads
    the branch's whole picture), so one finding is one alert; the trailing slash makes it all category (GitHub reads
    what follows the last slash as the run's id). `all` is the name full audits always had: their alerts stay."""
    return f"reviewbot/audit/{branch}/all/"


def build_sarif(findings: Sequence[AuditFinding], *, category: str, commit_sha: str | None = None,
                repo_url: str | None = None, branch: str | None = None, tool_version: str | None = None,
                limits: Limits = GITHUB_LIMITS, not_audited: Sequence[str] = ()) -> Sarif:
    """The complete picture of one audit (carried-forward findings included: GitHub closes what is missing).
    `not_audited`: what the audit could not read, in words; the run is then marked partial (its invocation not
    successful, one error notification each), so neither GitHub's readers nor a tool take it for a clean run."""
    cut: list[str] = []
    kept: list[AuditFinding] = []
    seen: set[tuple[str, int]] = set()
    for f in sorted(findings, key=lambda f: f.rank):
        if not safe_path(f.path):
            cut.append(f"a finding with an unusable path ({f.path[:80]!r}) was left out")
        elif (f.fingerprint, f.occurrence) in seen:  # the same code at the same occurrence: one alert
            cut.append(f"a second finding with fingerprint {f.fingerprint}:{f.occurrence} at {f.path}:{f.start_line} "
                       "was merged")
        else:
            seen.add((f.fingerprint, f.occurrence))
            kept.append(f)
    if len(kept) > limits.results:
        cut.append(f"{len(kept) - limits.results} least severe finding(s) over GitHub's {limits.results:,} "
                   "results per run were left out")
        kept = kept[:limits.results]
    results = [result(f, limits.locations_per_result, limits.thread_flow_locations, cut) for f in kept]

    def document(n: int) -> dict[str, Any]:
        """The log with the `n` most severe results, the cut notes included (they count towards the size)."""
        notes = cut if n == len(results) else [*cut, f"{len(results) - n} least severe finding(s) were left "
                                               f"out to stay under GitHub's {_size(limits.gzipped_bytes)} "
                                               "compressed upload limit"]
        run = _run(kept[:n], results[:n], category, commit_sha, repo_url, branch, tool_version, limits)
        if not_audited:
            run["invocations"] = [partial_invocation(not_audited)]
        if notes:
            run["properties"] = {"reviewbot/cut": notes}
        return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}

    fitting = _fit(document, len(results), limits.gzipped_bytes)
    final = document(fitting)  # built last, so every result's ruleIndex is that of this rule list
    return Sarif(final, fitting, tuple(final["runs"][0].get("properties", {}).get("reviewbot/cut", ())))


def partial_invocation(not_audited: Sequence[str]) -> dict[str, Any]:
    """SARIF 2.1.0 §3.20.14 and §3.20.21: a run that did not do all its work says so, one notification per part."""
    return {"executionSuccessful": False,
            "toolExecutionNotifications": [{"level": "error", "message": {"text": sarif_text(text, 1000)}}
                                           for text in not_audited]}


def encode_sarif(document: dict[str, Any]) -> str:
    """The upload's `sarif` field: gzip, then base64 (GitHub's REST API)."""
    return base64.b64encode(_gzip(document)).decode("ascii")


def _gzip(document: dict[str, Any]) -> bytes:
    raw = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    return gzip.compress(raw, compresslevel=9, mtime=0)  # mtime 0: the same findings give the same bytes


def _fit(document: Callable[[int], dict[str, Any]], count: int, max_bytes: int) -> int:
    """How many results (most severe first) fit the compressed limit: all when they do, else a binary search."""
    if len(_gzip(document(count))) <= max_bytes:
        return count
    if len(_gzip(document(0))) > max_bytes:
        raise SarifTooLarge("an empty SARIF run is over the upload limit")
    low, high = 0, count  # low fits, high does not
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if len(_gzip(document(middle))) <= max_bytes else (low, middle)
    return low


def _size(limit: int) -> str:
    return f"{limit / 1024 / 1024:.0f} MB" if limit >= 1024 * 1024 else f"{limit:,} bytes"


def _run(kept: Sequence[AuditFinding], results: list[dict[str, Any]], category: str, commit_sha: str | None,
         repo_url: str | None, branch: str | None, tool_version: str | None, limits: Limits) -> dict[str, Any]:
    by_rule: dict[str | None, list[AuditFinding]] = {}
    for f in kept:
        by_rule.setdefault(f.cwe, []).append(f)
    rules = [rule(cwe, group, limits.tags_per_rule) for cwe, group in sorted(by_rule.items(),
                                                                            key=lambda kv: rule_id(kv[0]))]
    index = {r["id"]: i for i, r in enumerate(rules)}
    for one in results:
        one["ruleIndex"] = index[one["ruleId"]]
    run: dict[str, Any] = {
        "tool": {"driver": {"name": TOOL_NAME, "version": tool_version or _version(),
                            "semanticVersion": tool_version or _version(), "rules": rules}},
        "automationDetails": {"id": category},
        "columnKind": "utf16CodeUnits",
        "results": results,
    }
    if commit_sha and repo_url:
        provenance: dict[str, Any] = {"repositoryUri": repo_url, "revisionId": commit_sha,
                                      "mappedTo": {"uriBaseId": "%SRCROOT%"}}
        if branch:
            provenance["branch"] = branch
        run["versionControlProvenance"] = [provenance]
    return run


def _version() -> str:
    try:
        return metadata.version("reviewbot")
    except metadata.PackageNotFoundError:
        return "0.0.0"
