"""The tracking issue, pure: where code scanning is not available, one issue per repository that each audit
edits (counts by severity and CWE, new and fixed since the last audit, cost), found again by a signed marker."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from reviewbot.audit.findings import AuditFinding
from reviewbot.review.findings.security import CWE_NAMES
from reviewbot.review.publish.markdown import BADGE, code_span, neutralize_inline

TITLE = "reviewbot security audit"
ISSUE_MARKER = re.compile(r"<!-- reviewbot:audit-issue (\{.*\}) mac=([0-9a-f]{32}) -->")
_FP = re.compile(r"[0-9a-f]{16}")
MAX_LISTED = 50  # findings listed in the issue; the counts cover all of them
MAX_EVIDENCE_CHARS = 300  # of a listed finding's evidence lines (plain `path:line`), so the body stays bounded
# Fingerprints kept in the marker (19 characters each in JSON): this audit's first, other scopes' in what is left,
# so the body stays under GitHub's 65,536 characters with MAX_LISTED findings above it.
MAX_REMEMBERED = 1_500


def _mac(key: bytes, payload: str) -> str:
    return hmac.new(key, f"audit-issue\x1f{payload}".encode(), hashlib.sha256).hexdigest()[:32]


def read_tracking(body: str | None, key: bytes) -> dict[str, list[str]] | None:
    """category → fingerprints of its last audit, from an authenticated marker on the issue's last line; None
    when the issue is not ours (anyone can write a look-alike, nobody else can sign one)."""
    lines = (body or "").rstrip().splitlines()
    match = ISSUE_MARKER.fullmatch(lines[-1]) if lines else None
    if not match or not hmac.compare_digest(match.group(2), _mac(key, match.group(1))):
        return None
    try:
        data = json.loads(match.group(1))
    except ValueError:
        return None
    audits = data.get("audits") if isinstance(data, dict) else None
    if not isinstance(audits, dict):
        return None
    return {str(c): [f for f in fps if isinstance(f, str) and _FP.fullmatch(f)]
            for c, fps in audits.items() if isinstance(fps, list)}


def _marker(audits: dict[str, list[str]], key: bytes) -> str:
    payload = json.dumps({"audits": audits}, sort_keys=True, separators=(",", ":")).replace("--", "-\\u002d")
    return f"<!-- reviewbot:audit-issue {payload} mac={_mac(key, payload)} -->"


def tracking_body(findings: Sequence[AuditFinding], *, category: str, commit_sha: str, cost_usd: float,
                  reason: str, remembered: dict[str, list[str]] | None, key: bytes,
                  kept_in: str = "issue") -> tuple[str, int]:
    """The issue's Markdown after this audit, and how many findings are new since the last audit of the same
    category (the caller reopens a closed issue for those). `kept_in`: what holds the text (the issue, or the
    draft advisory of a public repository)."""
    ordered = sorted(findings, key=lambda f: f.rank)
    now = {f.fingerprint for f in ordered if _FP.fullmatch(f.fingerprint)}
    audits = {c: fps for c, fps in (remembered or {}).items() if c != category}
    before = set((remembered or {}).get(category, ()))
    first = category not in (remembered or {})
    new = [f for f in ordered if f.fingerprint not in before] if not first else list(ordered)
    fixed = len(before - now)
    severities = Counter(f.severity for f in ordered)
    lines = [f"Security audit of {code_span(category)} at commit {code_span(commit_sha[:12])}: "
             f"**{len(ordered)}** finding(s), estimated cost ${cost_usd:.2f}.", "",
             f"GitHub code scanning is not available for this repository ({neutralize_inline(reason)}), so "
             f"reviewbot keeps this one {kept_in} up to date instead; it is edited by every audit, never duplicated.",
             "", "| Severity | Findings |", "|---|---|"]
    lines += [f"| {BADGE[s]} | {severities[s]} |" for s in ("critical", "major", "minor", "nit") if severities[s]]
    lines += ["", "| CWE | Findings |", "|---|---|"]
    by_cwe = Counter(f.cwe or "unclassified" for f in ordered)
    lines += [f"| {c}{f' ({CWE_NAMES[c]})' if c in CWE_NAMES else ''} | {n} |"
              for c, n in sorted(by_cwe.items(), key=lambda kv: (-kv[1], kv[0]))]
    since = "first audit of this scope" if first else f"{len(new)} new, {fixed} fixed since the last audit"
    lines += ["", f"**Changes**: {since}.", "", f"## Findings ({len(ordered)})", ""]
    lines += [_item(f, f.fingerprint not in before and not first) for f in ordered[:MAX_LISTED]]
    if len(ordered) > MAX_LISTED:
        lines.append(f"- … and {len(ordered) - MAX_LISTED} less severe finding(s), counted above.")
    if not ordered:
        lines.append("No findings.")
    kept, room = {category: sorted(now)[:MAX_REMEMBERED]}, MAX_REMEMBERED - min(len(now), MAX_REMEMBERED)
    for other, fps in sorted(audits.items()):
        if room <= 0:
            break
        kept[other], room = fps[:room], room - len(fps[:room])
    return "\n".join(lines).rstrip() + "\n\n" + _marker(kept, key), len(new)


def _item(f: AuditFinding, new: bool) -> str:
    span = f"{f.start_line}-{f.end_line}" if f.end_line != f.start_line else str(f.start_line)
    tags = "".join([f" · {f.cwe}" if f.cwe else "", " · **unverified**" if not f.verified else "",
                    " · new" if new else ""])
    summary = neutralize_inline(" ".join(f.body.split())[:400])
    return f"- {BADGE[f.severity]}{tags} · {code_span(f'{f.path}:{span}')}: {neutralize_inline(f.title)}. " \
        f"{summary}{_evidence(f)}"


def _evidence(f: AuditFinding) -> str:
    """The evidence lines as plain `path:line` (no links: the notes are in the SARIF a code-scanning repository
    gets; here the places are enough), source → sink, bounded."""
    shown: list[str] = []
    for e in f.evidence:
        entry = f"{e.role} {code_span(f'{e.path}:{e.line}')}"
        if sum(len(s) + 3 for s in shown) + len(entry) > MAX_EVIDENCE_CHARS:
            shown.append(f"and {len(f.evidence) - len(shown)} more")
            break
        shown.append(entry)
    return f" Evidence: {' → '.join(shown)}." if shown else ""


def tracking_state(issue: dict[str, Any], key: bytes) -> dict[str, list[str]] | None:
    """The remembered audits of an issue listed by GitHub, if the issue is the App's tracking issue."""
    return read_tracking(str(issue.get("body") or ""), key)
