"""Every SARIF shape reviewbot writes, built from sample audit findings: shared by the schema test, Microsoft's
validator test and the code-scanning tests against the fake GitHub."""

from __future__ import annotations

import dataclasses

from reviewbot.audit.findings import AuditFinding, Evidence
from reviewbot.audit.sarif import Limits, Sarif, audit_category, build_sarif

COMMIT = "4f1c0a7d9e2b3c5a6d8e0f1a2b3c4d5e6f708192"
CATEGORY = audit_category("main")


def sql_injection() -> AuditFinding:
    """Source in one file, sink in another: related locations and a code flow."""
    return AuditFinding(
        path="app/views.py", start_line=41, end_line=43, title="Search term reaches raw SQL", cwe="CWE-89",
        severity="critical", fingerprint="0123456789abcdef",
        body="`q` from the query string is formatted into `cursor.execute`; see https://evil.example/x @admin.",
        evidence=(Evidence("app/forms.py", 12, "`q` read from request.GET", "source"),
                  Evidence("app/search.py", 30, "passed to build_query unescaped")),
        fix="cursor.execute(\"SELECT * FROM items WHERE name = %s\", [q])")


def weak_hash() -> AuditFinding:
    """Unverified, in one file, no fix."""
    return AuditFinding(path="app/auth/passwords.py", start_line=8, end_line=8, title="MD5 for passwords",
                        cwe="CWE-916", severity="major", body="Passwords are hashed with md5.",
                        fingerprint="fedcba9876543210", verified=False)


def unclassified() -> AuditFinding:
    return AuditFinding(path="deploy/settings file.py", start_line=3, end_line=3, title="Debug on in production",
                        cwe=None, severity="minor", body="DEBUG = True", fingerprint="00000000000000aa",
                        evidence=(Evidence("deploy/settings file.py", 1, "imported by the WSGI entry point"),))


def anchored_at_the_source() -> AuditFinding:
    """The model anchored the finding where the input enters and named the sink in another file: the flow ends at
    the sink, the primary location stays the finding's own (not repeated among the related locations)."""
    return AuditFinding(path="app/upload.py", start_line=20, end_line=21, title="Upload name reaches a file path",
                        cwe="CWE-22", severity="major", fingerprint="0a0b0c0d0e0f1011",
                        body="The uploaded file's name is used as a path.",
                        evidence=(Evidence("app/upload.py", 20, "name taken from the request", "source"),
                                  Evidence("app/storage.py", 8, "joined to MEDIA_ROOT", "step"),
                                  Evidence("app/storage.py", 9, "opened for writing", "sink")))


def identical_copies() -> list[AuditFinding]:
    """One copy-pasted query in two functions of one file: one fingerprint, two results (`:1`, `:2`)."""
    return [dataclasses.replace(sql_injection(), path="app/db.py", start_line=line, end_line=line, evidence=(),
                                occurrence=occurrence) for line, occurrence in ((5, 1), (10, 2))]


def many(count: int, *, evidence: int = 0) -> list[AuditFinding]:
    return [AuditFinding(path=f"pkg/m{i % 97}.py", start_line=i + 1, end_line=i + 1, title=f"Finding {i}",
                         cwe="CWE-78", severity=("critical", "major", "minor", "nit")[i % 4], body="x" * 50,
                         fingerprint=f"{i:016x}",
                         evidence=tuple(Evidence(f"lib/e{j}.py", j + 1, "step") for j in range(evidence)))
            for i in range(count)]


def shapes() -> dict[str, Sarif]:
    """name → SARIF: the shapes the project writes (empty run, evidence across files, unverified, cut)."""
    base = [sql_injection(), weak_hash(), unclassified()]
    return {
        "empty": build_sarif([], category=CATEGORY, commit_sha=COMMIT, tool_version="1.0.0"),
        "findings": build_sarif(base, category=CATEGORY, commit_sha=COMMIT, repo_url="https://github.com/acme/shop",
                                branch="main", tool_version="1.0.0"),
        "evidence": build_sarif([anchored_at_the_source(), sql_injection()], category=CATEGORY, commit_sha=COMMIT,
                                tool_version="1.0.0"),
        "identical_copies": build_sarif(identical_copies(), category=CATEGORY, commit_sha=COMMIT,
                                        tool_version="1.0.0"),
        "partial": build_sarif([weak_hash()], category=CATEGORY, commit_sha=COMMIT, tool_version="1.0.0",
                               not_audited=["app/db.py was not audited (part 2 of 3: Request is too large); its "
                                            "last findings are kept"]),
        "cut_results": build_sarif(many(40), category=CATEGORY, tool_version="1.0.0", limits=Limits(results=25)),
        "cut_locations": build_sarif(many(3, evidence=30), category=CATEGORY, tool_version="1.0.0",
                                     limits=Limits(locations_per_result=10, thread_flow_locations=8)),
        "cut_size": build_sarif(many(400), category=CATEGORY, tool_version="1.0.0",
                                limits=Limits(gzipped_bytes=4_000)),
    }
