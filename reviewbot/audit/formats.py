"""The local audit's report in the format asked for: Markdown for people, JSON for tools, SARIF for code
scanning (the same SARIF the service uploads)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from reviewbot.audit import report as auditreport
from reviewbot.audit.findings import AuditFinding, from_finding
from reviewbot.audit.sarif import audit_category, build_sarif

Format = Literal["markdown", "json", "sarif"]
FORMATS: tuple[Format, ...] = ("markdown", "json", "sarif")


def format_for(report: Path | None, asked: str | None) -> Format:
    """`--format` when given, else the report's suffix (.json, .sarif), else Markdown."""
    if asked in FORMATS:
        return asked
    suffix = report.suffix.lower() if report else ""
    return "json" if suffix == ".json" else "sarif" if suffix == ".sarif" else "markdown"


def audit_findings(state: dict[str, Any], read: Callable[[str], str | None]) -> list[AuditFinding]:
    """The report's findings as audit findings, fingerprinted from the files' current text."""
    found = []
    for finding in auditreport.findings_of(state):
        text = read(finding.path)
        found.append(from_finding(finding, lines=text.split("\n") if text is not None else None))
    return found


def not_audited(state: dict[str, Any]) -> list[str]:
    """The parts of a local audit that have no result (failed, or not run yet), and failed verifications: a SARIF
    of an unfinished audit is marked partial, never a clean run."""
    notes = [f"{', '.join(c['paths'])} not audited (part {c['index'] + 1} of {len(state['chunks'])}: "
             f"{state.get('failed', {}).get(str(c['index']), 'no result yet')})"
             for c in state["chunks"] if str(c["index"]) not in state.get("done", {})]
    return notes + [f"{key} did not run: {why}" for key, why in state.get("failed", {}).items() if not key.isdigit()]


def render(state: dict[str, Any], fmt: Format, read: Callable[[str], str | None], *, branch: str = "local",
           commit_sha: str | None = None) -> str:
    if fmt == "json":
        return json.dumps(auditreport.as_json(state), indent=2)
    if fmt == "sarif":
        return build_sarif(audit_findings(state, read), category=audit_category(branch), commit_sha=commit_sha,
                           not_audited=not_audited(state)).text()
    return auditreport.markdown(state)
