"""One audit finding as a SARIF result: level, message (plain, inert text), location, evidence as related
locations and a source-to-sink code flow, and the fingerprints that keep an alert's identity."""

from __future__ import annotations

import urllib.parse
from collections.abc import Sequence
from typing import Any

from reviewbot.audit.findings import AuditFinding, Evidence
from reviewbot.audit.sarif_rules import LEVEL, rule_id, sarif_text
from reviewbot.review.publish.autolinks import broken
from reviewbot.review.publish.markdown import plain

FINGERPRINT_KEY = "reviewbotCodeKey/v1"


def result(f: AuditFinding, max_locations: int, max_flow: int, cut: list[str]) -> dict[str, Any]:
    """One finding as a result; evidence beyond the limits (the primary location and the sink count too) or with an
    unusable path is left out, and said in `cut`."""
    usable = [e for e in f.evidence if safe_path(e.path) and e.line >= 1]
    # The primary location counts among a result's locations, and the sink closes the code flow.
    cap = max(0, min(max_locations, max_flow) - 1)
    if len(usable) > cap or len(usable) < len(f.evidence):
        cut.append(f"{len(f.evidence) - min(len(usable), cap)} evidence location(s) of {f.path}:{f.start_line} "
                   "were left out")
    evidence = usable[:cap]
    # The finding's own lines are the primary location (what GitHub shows and matches alerts by): not repeated.
    related = [e for e in evidence if not _inside(f, e)]
    result: dict[str, Any] = {
        "ruleId": rule_id(f.cwe),
        "level": LEVEL[f.severity],
        "message": {"text": _message(f, related)},
        "locations": [_location(f.path, f.start_line, f.end_line)],
        "partialFingerprints": fingerprints(f),
        "properties": {"severity": f.severity, "verified": f.verified,
                       **({} if f.verified else {"tags": ["unverified"]})},
    }
    if related:
        result["relatedLocations"] = [{"id": i, **_location(e.path, e.line, e.line, _note(e))}
                                      for i, e in enumerate(related, start=1)]
    if any(e.path != f.path for e in evidence):  # source and sink in different files: a code flow shows the path
        steps = [_location(e.path, e.line, e.line, _note(e)) for e in evidence]
        # The finding's own lines close the flow as its sink, unless the model named the sink or placed them already
        # (a finding anchored where the input enters).
        if not any(e.role == "sink" or _inside(f, e) for e in evidence):
            steps.append(_location(f.path, f.start_line, f.end_line, "sink"))
        result["codeFlows"] = [{"threadFlows": [{"locations": [{"location": s} for s in steps]}]}]
    return result


def fingerprints(f: AuditFinding) -> dict[str, str]:
    """`hash:occurrence` as CodeQL writes it: identical code twice in a file is two alerts. Our own key gets the
    occurrence too from the second copy on, so no two results of a run share a fingerprint; the first copy's keys
    are those of earlier versions, so existing alerts keep their identity."""
    key = f.fingerprint if f.occurrence == 1 else f"{f.fingerprint}:{f.occurrence}"
    return {"primaryLocationLineHash": f"{f.fingerprint}:{f.occurrence}", FINGERPRINT_KEY: key}


def _message(f: AuditFinding, evidence: Sequence[Evidence]) -> str:
    title = sarif_text(f.title, 300).rstrip(".")
    parts = [f"{title}.", sarif_text(f.body)]
    if not f.verified:
        parts.append("Unverified: the second request that checks findings could not run for this one.")
    if evidence:
        # Embedded links `[text](id)` point at relatedLocations; the link text is ours, the notes are escaped.
        links = ", ".join(f"{e.role} [{_label(e)}]({i})" for i, e in enumerate(evidence, start=1))
        parts.append(f"Evidence: {links}.")
    if f.fix:
        parts.append("Suggested fix:\n" + sarif_text(f.fix))
    return "\n\n".join(p for p in parts if p)


def _label(e: Evidence) -> str:
    name = e.path.rsplit("/", 1)[-1].translate({ord("["): "(", ord("]"): ")"})
    return f"{broken(plain(name)[:80])}:{e.line}"


def _inside(f: AuditFinding, e: Evidence) -> bool:
    return e.path == f.path and f.start_line <= e.line <= f.end_line


def _note(e: Evidence) -> str:
    return f"{e.role}: {e.note}" if e.note else e.role


def _location(path: str, start: int, end: int, note: str = "") -> dict[str, Any]:
    location: dict[str, Any] = {"physicalLocation": {
        "artifactLocation": {"uri": urllib.parse.quote(path, safe="/"), "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": start, "endLine": max(start, end)}}}
    if note:
        location["message"] = {"text": sarif_text(note, 300)}
    return location


def safe_path(path: str) -> bool:
    """Repository-relative, inside the repository: an untrusted name never points GitHub elsewhere."""
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and "\\" not in path and ":" not in parts[0] and \
        all(p not in ("", ".", "..") for p in parts) and all(c >= " " and c != "\x7f" for c in path)
