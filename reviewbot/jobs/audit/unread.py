"""What an audit did not read, pure: files outside its scope, in a chunk that was not audited or past its cost cap.
Their last findings are carried into the upload (GitHub closes an alert its category's next analysis lacks, and
an audit must only close what it read again), and the run names them as not audited."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from reviewbot.audit.service_record import AuditRecord, FindingJson
from reviewbot.jobs.audit.audit_scope import under

MAX_NAMED = 20  # files named per note; the rest are counted


def outside_scope(baseline: Mapping[str, Mapping[str, Any]], scope: Sequence[str],
                  present: Collection[str]) -> list[FindingJson]:
    """A folder's audit: the branch's last findings in files outside the folder that are still in the tree, so
    the branch's one category keeps them (an empty scope is the whole repository: nothing outside it)."""
    if not [s for s in scope if s.strip("/")]:
        return []
    return [f for p, seen in sorted(baseline.items()) if p in present and not under(p, scope)
            for f in seen.get("findings") or []]


def unread_paths(record: AuditRecord) -> list[str]:
    """The files this audit planned to read and did not: its failed chunks' and those past `max_usd`."""
    failed = [p for i in sorted(record.not_audited, key=int) for p in record.chunks[int(i)].paths]
    return sorted({*failed, *record.left_out})


def unread_findings(baseline: Mapping[str, Mapping[str, Any]], record: AuditRecord,
                    found: Sequence[FindingJson]) -> list[FindingJson]:
    """The last findings of the files not read, unless this audit reported the same place again."""
    known = {(f["path"], f["line"], f["title"]) for f in found}
    return [f for p in unread_paths(record) for f in (baseline.get(p) or {}).get("findings") or []
            if (f["path"], f["line"], f["title"]) not in known]


def unread_notes(record: AuditRecord) -> list[str]:
    """One sentence per part that was not audited, for the SARIF run's notifications."""
    notes = []
    for index in sorted(record.not_audited, key=int):
        paths = record.chunks[int(index)].paths
        notes.append(f"{_named(paths)} not audited (part {int(index) + 1} of {len(record.chunks)}: "
                     f"{record.not_audited[index]}); their last findings are kept")
    if record.left_out:
        notes.append(f"{_named(record.left_out)} not audited (past the audit's max_usd cost cap); their last "
                     "findings are kept")
    return notes


def _named(paths: Sequence[str]) -> str:
    more = f" and {len(paths) - MAX_NAMED} more file(s)" if len(paths) > MAX_NAMED else ""
    return ", ".join(paths[:MAX_NAMED]) + more + (" was" if len(paths) == 1 else " were")
