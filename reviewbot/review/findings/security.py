"""Security mode: the checklist the prompt carries, CWE ids, and the CWE → count section of the summary."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewbot.review.findings.schema import Finding

# Item → the CWE ids the model should reach for first; the prompt lists them so tags are consistent.
CHECKLIST_ITEMS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Injection", "untrusted input reaching SQL, a shell, a template, an HTML page, eval or a query language "
     "without parameters or escaping", ("CWE-89", "CWE-78", "CWE-79", "CWE-94", "CWE-943")),
    ("Authentication and authorisation", "missing, bypassable or misplaced checks; objects fetched by id "
     "without checking who owns them; sessions and tokens that never expire", ("CWE-287", "CWE-862", "CWE-863",
                                                                              "CWE-639", "CWE-613")),
    ("Secrets", "credentials, keys or tokens in code, configuration, logs, error messages or responses",
     ("CWE-798", "CWE-532", "CWE-200")),
    ("Deserialisation", "pickle, yaml.load, object streams or eval over data an attacker controls", ("CWE-502",)),
    ("Path traversal", "user-controlled paths joined without being normalised and confined, archive entries "
     "extracted as named", ("CWE-22", "CWE-59")),
    ("SSRF", "server-side requests to URLs or hosts the user controls, redirects followed to internal "
     "addresses", ("CWE-918",)),
    ("Crypto misuse", "fast hashes for passwords, ECB, fixed IVs or keys, predictable randomness for tokens, "
     "secrets compared in non-constant time, TLS verification turned off", ("CWE-327", "CWE-916", "CWE-330",
                                                                           "CWE-208", "CWE-295")),
    ("Unsafe defaults", "debug modes, permissive CORS, world-writable files, fail-open error handling, "
     "features on by default that should be opt-in", ("CWE-1188", "CWE-942", "CWE-276", "CWE-636")),
    ("Dependency changes", "new or upgraded packages, removed pins, install scripts, look-alike package names",
     ("CWE-1104", "CWE-829")),
)
CWE_NAMES: dict[str, str] = {
    "CWE-22": "path traversal", "CWE-59": "link following", "CWE-78": "OS command injection",
    "CWE-79": "cross-site scripting", "CWE-89": "SQL injection", "CWE-94": "code injection",
    "CWE-200": "information exposure", "CWE-208": "timing discrepancy", "CWE-276": "incorrect default permissions",
    "CWE-287": "improper authentication", "CWE-295": "improper certificate validation",
    "CWE-327": "broken or risky cryptography", "CWE-330": "insufficiently random values",
    "CWE-502": "deserialisation of untrusted data", "CWE-532": "secrets in logs", "CWE-613": "session expiration",
    "CWE-636": "failing open", "CWE-639": "authorisation bypass through a user-controlled key",
    "CWE-798": "hard-coded credentials", "CWE-829": "untrusted functionality", "CWE-862": "missing authorisation",
    "CWE-863": "incorrect authorisation", "CWE-916": "weak password hashing", "CWE-918": "SSRF",
    "CWE-942": "permissive cross-domain policy", "CWE-943": "query injection", "CWE-1104": "unmaintained components",
    "CWE-1188": "insecure default",
}


def checklist() -> str:
    """The prompt section of a security review: the same bytes every time (it sits in the guidance section)."""
    items = "\n".join(f"- **{name}**: {what} ({', '.join(cwes)})." for name, what, cwes in CHECKLIST_ITEMS)
    return ("## Security review\n\nThis is a security review. Go through every item below for the changed code "
            "and what it calls, and report only weaknesses the code shows, not general advice:\n\n" + items
            + '\n\nFor each security finding set category "security" and cwe to the most specific CWE id '
            '(for example "CWE-89"); cwe is null for other findings.')




def cwe_counts(findings: Sequence[Finding]) -> list[tuple[str, int]]:
    """Security findings by CWE, most frequent first; untagged security findings count as "unclassified"."""
    counts = Counter(f.cwe or "unclassified" for f in findings if f.cwe or f.category == "security")
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def security_section(findings: Sequence[Finding], security_mode: bool) -> list[str]:
    """The summary's "Security" section: CWE → count of the findings posted (empty outside security mode
    when nothing was tagged)."""
    counts = cwe_counts(findings)
    if not counts and not security_mode:
        return []
    lines = ["", "#### Security", ""]
    if not counts:
        return [*lines, "No security findings were confirmed in this review."]
    lines += ["| CWE | Findings |", "|---|---|"]
    for cwe, count in counts:
        name = CWE_NAMES.get(cwe)
        lines.append(f"| {cwe}{f' ({name})' if name else ''} | {count} |")
    return lines
