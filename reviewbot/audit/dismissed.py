"""An audit's findings that are alerts people dismissed in GitHub's interface (remembered as learnings), pure: they
stay in the SARIF, so GitHub keeps those alerts dismissed, but are raised nowhere as new."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from reviewbot.audit.findings import AuditFinding
from reviewbot.review.findings.dismissals import Learning, held_back


def dismissed_in_code_scanning(findings: Sequence[AuditFinding], learnings: Sequence[Learning],
                               read: Callable[[str], str | None]) -> tuple[list[AuditFinding], list[AuditFinding]]:
    """(findings to publish, findings a code-scanning dismissal holds back). `read` gives a file at the audited
    commit, to find the dismissed code again where it moved."""
    alerts = [learning for learning in learnings if learning.source == "code-scanning" and learning.repository]
    if not alerts:
        return list(findings), []
    paths = {learning.path for learning in alerts}
    texts: dict[str, list[str]] = {}
    kept: list[AuditFinding] = []
    held: list[AuditFinding] = []
    for f in findings:
        if f.path in paths and f.path not in texts:
            texts[f.path] = (read(f.path) or "").split("\n")
        learning = held_back(f.fingerprint, f.path, f.title, alerts, head_files=texts, cwe=f.cwe,
                             lines=(f.start_line, f.end_line)) if f.path in paths else None
        (held if learning is not None else kept).append(f)
    return kept, held
