"""SARIF rules of an audit (one per CWE: descriptions, help, tags, severity) and the plain text GitHub shows."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from linkify_it import LinkifyIt  # type: ignore[import-untyped]

from reviewbot.audit.findings import AuditFinding
from reviewbot.review.findings.alerts import alert_rule_id
from reviewbot.review.findings.schema import SEVERITY_RANK
from reviewbot.review.findings.security import CHECKLIST_ITEMS, CWE_NAMES
from reviewbot.review.publish.autolinks import broken
from reviewbot.review.publish.markdown import plain

# GitHub maps security-severity to its labels: ≥ 9.0 critical, 7.0–8.9 high, 4.0–6.9 medium, below that low.
SECURITY_SEVERITY = {"critical": "9.5", "major": "7.5", "minor": "5.0", "nit": "2.0"}
LEVEL = {"critical": "error", "major": "error", "minor": "warning", "nit": "note"}
REMEDIATION = {
    "Injection": "Pass untrusted values as parameters (prepared statements, argument lists, auto-escaping "
                 "templates); never build the query, command or markup as a string.",
    "Authentication and authorisation": "Check who is asking, and that they may act on this object, on the server, "
                                        "before the action; fetch objects through their owner.",
    "Secrets": "Move the secret to the deployment's secret store, rotate it, and keep it out of logs and replies.",
    "Deserialisation": "Parse data with a format that cannot build objects (JSON, yaml.safe_load); never unpickle "
                       "or eval what a user sent.",
    "Path traversal": "Resolve the path, then check that it stays inside the intended directory before using it.",
    "SSRF": "Allow only known hosts and schemes, resolve the address and refuse private and link-local ones, and "
            "do not follow redirects blindly.",
    "Crypto misuse": "Use the platform's vetted primitives: a slow salted hash for passwords, authenticated "
                     "encryption, a CSPRNG for tokens, constant-time comparison, verified TLS.",
    "Unsafe defaults": "Make the safe behaviour the default and the risky one an explicit, documented opt-in.",
    "Dependency changes": "Pin the dependency to a reviewed version from its official source and check its "
                          "install scripts.",
}
_LINKS = LinkifyIt()
MAX_TEXT = 4_000  # characters of one untrusted part (a body, a fix): a message stays readable and small


def rule_id(cwe: str | None) -> str:
    """Stable across audits (GitHub matches alerts by rule): the CWE alone, never the severity or title."""
    return alert_rule_id(cwe)  # the review matches findings to alerts by it (review/findings/alerts.py)


def _item(cwe: str | None) -> tuple[str, str] | None:
    return next(((name, what) for name, what, cwes in CHECKLIST_ITEMS if cwe in cwes), None)


def rule(cwe: str | None, findings: Sequence[AuditFinding], max_tags: int) -> dict[str, Any]:
    """One rule; its severity is that of its most severe finding in this audit (GitHub reads it per rule)."""
    worst = min(findings, key=lambda f: SEVERITY_RANK[f.severity]).severity
    name = CWE_NAMES.get(cwe or "", "security weakness")
    short = f"{name[:1].upper()}{name[1:]} ({cwe})" if cwe else "Security weakness"
    item = _item(cwe)
    full = (f"{item[0]}: {item[1]}." if item else f"{short}: a weakness found by reviewbot's security audit.") + \
        " Found by reviewbot's security audit of the whole repository with a hosted model; each finding is " \
        "checked by a second request unless marked unverified."
    fix = REMEDIATION.get(item[0], "") if item else ""
    help_text = (f"{short}. {fix} " if fix else f"{short}. ") + "The alert's message says what the audit found, " \
        "the evidence lines (source and sink) and, when the model gave one, a suggested fix."
    help_md = f"**{short}**\n\n{fix}\n\nThe alert's message says what the audit found, with the evidence " \
              "lines (where the input enters and where it is used) and, when the model gave one, a suggested fix."
    tags = ["security", *([f"external/cwe/{cwe.lower()}"] if cwe else [])]
    precision = "high" if all(f.verified for f in findings) else "medium"
    return {"id": rule_id(cwe), "name": _pascal(name) or "SecurityWeakness",
            "shortDescription": {"text": short}, "fullDescription": {"text": full},
            "help": {"text": help_text, "markdown": help_md},
            "defaultConfiguration": {"level": LEVEL[worst]},
            "properties": {"tags": tags[:max_tags], "security-severity": SECURITY_SEVERITY[worst],
                           "precision": precision, "problem.severity": "error" if LEVEL[worst] == "error"
                           else "warning" if LEVEL[worst] == "warning" else "recommendation"}}


def _pascal(words: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in "".join(c if c.isalnum() else " " for c in words).split())


@functools.lru_cache(maxsize=4096)  # evidence notes and titles repeat across thousands of results
def sarif_text(text: str, limit: int = MAX_TEXT) -> str:
    """Untrusted text for `message.text` (what GitHub shows): no secrets, no pings, no links. SARIF reads
    `[text](target)` as a link, so `](` is broken apart; URLs GitHub would link are defanged
    (`hxxps[:]//host[.]com`), and `www.` hosts, e-mail addresses and other repositories' `owner/repo#12` with any
    top-level domain get a zero-width joiner where their link would start."""
    text = plain(text.strip())
    if len(text) > limit:
        text = text[:limit].rstrip() + " …"
    out, at = [], 0
    for match in (_LINKS.match(text) if _LINKS.pretest(text) else None) or []:
        raw = str(match.raw)
        if match.schema or raw.lower().startswith("www."):  # what GitHub would link; `views.py` stays a file name
            out.append(text[at:match.index] + _defang(raw))
            at = match.last_index
    out.append(text[at:])
    # A URL linkify does not take (after `=`, say) could still be one to a looser renderer: no `://` at all.
    return broken("".join(out)).replace("](", "] (").replace("://", "[:]//")


def _defang(raw: str) -> str:
    scheme, sep, rest = raw.partition("://")
    if not sep:
        scheme, rest = "", raw
    scheme = scheme.replace("http", "hxxp").replace("ftp", "fxp") + ("[:]//" if sep else "")
    return scheme + rest.replace(".", "[.]")
