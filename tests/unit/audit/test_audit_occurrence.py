"""Identical vulnerable code twice in one file: two findings, two alerts (`hash:1`, `hash:2`), stable across audits."""

from __future__ import annotations

from typing import Any

from reviewbot.audit.dedup import NEAR, dedupe
from reviewbot.audit.findings import from_finding
from reviewbot.audit.sarif import build_sarif
from reviewbot.audit.service_record import AuditRecord, ChunkResult
from reviewbot.jobs.audit.distinct_findings import distinct
from reviewbot.review.findings.schema import Finding

QUERY = "    return conn.execute(\"SELECT * FROM users WHERE name = '%s'\" % name)"
DB = ["import sqlite3", "", "", "def find(conn, name):", QUERY, "", "", "def find_again(conn, name):",
      "    # copied from find()", QUERY, ""]


def finding(line: int, **changes: Any) -> Finding:
    base = {"path": "app/db.py", "line": line, "start_line": None, "side": "RIGHT", "severity": "critical",
            "category": "security", "title": "User input is formatted into SQL", "body": "Use a parameter.",
            "suggestion": None, "confidence": 0.9, "cwe": "CWE-89"}
    return Finding.model_validate(base | changes)


def hashes(lines: list[str], *at: int) -> list[str]:
    sarif = build_sarif([from_finding(finding(n), lines=lines) for n in at], category="c/")
    return [r["partialFingerprints"]["primaryLocationLineHash"] for r in sarif.document["runs"][0]["results"]]


def test_identical_lines_far_apart_are_two_findings_overlapping_or_neighbouring_ones_are_one() -> None:
    read = {"app/db.py": "\n".join(DB)}.get
    far = dedupe([(0, finding(5)), (1, finding(10))], read)
    assert [(d.finding.line, d.chunks) for d in far] == [(5, (0,)), (10, (1,))]
    assert far[0].fingerprint == far[1].fingerprint  # the same code: only the place tells them apart
    [one] = dedupe([(0, finding(5)), (1, finding(5, start_line=4)), (2, finding(5))], read)
    assert one.chunks == (0, 1, 2)
    [near] = dedupe([(0, finding(5)), (1, finding(5 + NEAR))], read)
    assert near.chunks == (0, 1)
    assert len(dedupe([(0, finding(5)), (1, finding(5 + NEAR + 1))], read)) == 2


def test_two_identical_lines_are_hash_1_and_hash_2_and_stay_so_when_lines_are_added_above() -> None:
    first, second = hashes(DB, 5, 10)
    digest = first.split(":")[0]
    assert (first, second) == (f"{digest}:1", f"{digest}:2")
    moved = ["import os", "import logging", "", "LOG = logging.getLogger()", *DB]
    assert hashes(moved, 9, 14) == [first, second]
    assert hashes(DB, 4)[0].endswith(":1")  # `def find(…)` appears once


def test_the_copy_the_model_did_not_report_still_counts_and_each_fix_leaves_the_other_copy_published() -> None:
    # Counted over the file, not over findings: the second copy alone is still `:2` (the model's choice of what to
    # report does not renumber alerts).
    [alone] = hashes(DB, 10)
    assert alone.endswith(":2")
    fixed_second = [*DB[:9], "    return conn.execute(\"SELECT * FROM users WHERE name = ?\", (name,))", DB[10]]
    assert hashes(fixed_second, 5) == [hashes(DB, 5)[0]]  # the first copy keeps its alert
    fixed_first = [*DB[:4], "    return conn.execute(\"SELECT * FROM users WHERE name = ?\", (name,))", *DB[5:]]
    [left] = hashes(fixed_first, 10)
    assert left.split(":")[0] == alone.split(":")[0]  # the second copy is still reported, as CodeQL numbers it


def test_a_carried_finding_hides_only_the_candidate_at_its_place_not_the_other_copy() -> None:
    carried = finding(5).model_dump(mode="json")
    record = AuditRecord(id="a", installation_id=1, repo="acme/w", branch="main", sha="0" * 40, paths=[],
                         status="running", created=0.0, model="m", config={}, chunks=[], estimate_usd=0.0, blobs={},
                         carried=[carried])
    done = {0: ChunkResult(findings=[finding(5).model_dump(mode="json"), finding(10).model_dump(mode="json")])}
    found = distinct(record, done, {"app/db.py": "\n".join(DB)}.get)
    assert [d.finding.line for d in found] == [10]
