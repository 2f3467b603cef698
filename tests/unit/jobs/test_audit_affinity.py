"""An audit's `x-session-affinity`: the next audit of the same branch and scope reads the last one's cached prefix."""

from __future__ import annotations

from reviewbot.audit.service_record import AuditRecord
from reviewbot.jobs.audit.chunk_input import audit_affinity


def record(audit_id: str, branch: str = "main", paths: tuple[str, ...] = ()) -> AuditRecord:
    return AuditRecord(id=audit_id, installation_id=1, repo="acme/w", branch=branch, sha="0" * 40, paths=list(paths),
                       status="running", created=0.0, model="m", config={}, chunks=[], estimate_usd=0.0, blobs={})


def test_a_re_audit_of_the_same_branch_and_scope_lands_on_the_last_audits_cache() -> None:
    assert audit_affinity(record("first")) == audit_affinity(record("second"))
    assert audit_affinity(record("a", paths=("src", "api"))) == audit_affinity(record("b", paths=("api", "src")))


def test_another_branch_or_scope_has_a_cache_of_its_own() -> None:
    assert audit_affinity(record("a")) != audit_affinity(record("a", branch="dev"))
    assert audit_affinity(record("a")) != audit_affinity(record("a", paths=("src",)))
