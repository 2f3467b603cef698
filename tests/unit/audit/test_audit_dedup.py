"""Candidates merged across chunks by code fingerprint before verification: one check and one entry each."""

from __future__ import annotations

from typing import Any

from reviewbot.audit.batches import batch_messages, verification_batches
from reviewbot.audit.dedup import dedupe
from reviewbot.review.findings.precision import Precision
from reviewbot.review.findings.schema import Finding

DB = ("import sqlite3\n\n\ndef find(conn, name):\n"
      "    return conn.execute(f\"SELECT * FROM users WHERE name = '{name}'\")\n\n\n"
      "def load(blob):\n    return pickle.loads(blob)\n")
FILES = {"app/db.py": DB}


def finding(**changes: Any) -> Finding:
    base = {"path": "app/db.py", "line": 5, "start_line": None, "side": "RIGHT", "severity": "critical",
            "category": "security", "title": "User input is formatted into SQL", "body": "Use a parameter.",
            "suggestion": None, "confidence": 0.9, "cwe": "CWE-89"}
    return Finding.model_validate(base | changes)


def test_the_same_code_seen_by_three_chunks_is_one_finding_verified_by_the_chunk_that_audits_the_file() -> None:
    reports = [(0, finding(title="SQL built from user input", severity="major")), (3, finding()),
               (5, finding(title="Injection in find()", confidence=0.6))]
    [distinct] = dedupe(reports, FILES.get, home={"app/db.py": 3})
    assert distinct.chunks == (0, 3, 5) and distinct.owner == 3
    assert distinct.finding.title == "User input is formatted into SQL"  # the most severe, most confident report


def test_a_report_a_line_away_with_the_same_cwe_is_the_same_finding_another_cwe_is_not() -> None:
    reports = [(0, finding(line=5)), (1, finding(start_line=4, line=5)), (2, finding(line=6)),
               (2, finding(line=5, cwe="CWE-79", title="Reflected into HTML")), (1, finding(line=10, cwe="CWE-502"))]
    distinct = dedupe(reports, FILES.get)
    assert [(d.finding.line, d.finding.cwe, d.chunks) for d in distinct] == [
        (5, "CWE-79", (2,)), (5, "CWE-89", (0, 1, 2)), (10, "CWE-502", (1,))]
    assert len({d.fingerprint for d in distinct}) == 3


def test_a_file_nobody_can_read_is_told_apart_by_title() -> None:
    distinct = dedupe([(0, finding(path="gone.py")), (1, finding(path="gone.py")),
                       (1, finding(path="gone.py", line=40, title="Another"))], FILES.get)
    assert [d.chunks for d in distinct] == [(0, 1), (1,)]


def test_verification_batches_ride_on_the_owner_chunks_cached_conversation() -> None:
    distinct = dedupe([(2, finding()), (0, finding()), (1, finding(line=10, cwe="CWE-502", title="Pickle"))],
                      FILES.get, home={"app/db.py": 1})
    batches, kept = verification_batches(distinct, Precision(security=True))
    assert kept == [] and [(b.owner, len(b.findings)) for b in batches] == [(1, 2)]
    assert len({b.key for b in batches}) == 1 and batches[0].key == verification_batches(
        distinct, Precision(security=True))[0][0].key
    chunk = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    messages = batch_messages(chunk, batches[0].findings, FILES.get)
    assert messages[:2] == chunk and "### Candidate 2: Pickle" in messages[2]["content"]
    assert "pickle.loads(blob)" in messages[2]["content"]


def test_a_verification_shows_the_evidence_lines_with_their_code_and_a_review_finding_is_shown_as_before() -> None:
    files = FILES | {"app/views.py": "def search(conn, request):\n    return find(conn, request.args['q'])  # ```\n"}
    steps = [{"path": "app/views.py", "line": 2, "role": "source", "note": "the query\nstring"},
             {"path": "app/db.py", "line": 5, "role": "sink", "note": ""},
             {"path": "app/gone.py", "line": 3, "role": "step", "note": "read elsewhere"}]
    chunk = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    with_evidence = finding(evidence=steps)
    [batch], _ = verification_batches(dedupe([(0, with_evidence)], files.get, home={}), Precision(security=True))
    shown = batch_messages(chunk, batch.findings, files.get)[2]["content"]
    evidence = shown.split("Evidence it names (source, steps, sink):\n```\n")[1].split("\n```")[0].split("\n")
    assert evidence == ["source app/views.py:2  return find(conn, request.args['q'])  # `\u200b``  # the query string",
                        "sink   app/db.py:5  return conn.execute(f\"SELECT * FROM users WHERE name = '{name}'\")",
                        "step   app/gone.py:3  (not available)  # read elsewhere"]
    [plain], _ = verification_batches(dedupe([(0, finding())], files.get, home={}), Precision(security=True))
    assert "Evidence it names" not in batch_messages(chunk, plain.findings, files.get)[2]["content"]
