"""The typed audit record reads the JSON the jobs wrote before it was typed and writes every field back by its name."""

from __future__ import annotations

import json
from typing import Any

from reviewbot.audit.service_record import (
    AuditRecord,
    AuditUsage,
    ChunkResult,
    CodeAsk,
    PlannedChunk,
    Publication,
)
from reviewbot.jobs.audit.audit_target import category_branch
from reviewbot.model import Usage

SQLI: dict[str, Any] = {"path": "app/db.py", "line": 3, "start_line": None, "side": "RIGHT", "severity": "critical",
                        "category": "security", "title": "User input is formatted into SQL", "body": "Use a parameter.",
                        "suggestion": None, "confidence": 0.9, "cwe": "CWE-89", "unverified": False}

# As `plan_job` wrote it (then `json.dumps`), an audit asked on issue 12 and answered there.
PLANNED = """{"id": "a1b2", "installation_id": 42, "repo": "octo/demo", "branch": "main", "sha": "0123456789abcdef",
 "base_branch": "main", "repo_url": "https://github.com/octo/demo", "paths": ["app"], "full": false,
 "incremental": true, "trigger": "comment", "number": 12, "status": "running", "created": 1764633553.25,
 "model": "@cf/moonshotai/kimi-k2.6", "config": {"audit": {"max_usd": 5.0, "paths": []}, "ignore": []},
 "max_usd": 5.0, "chunks": [{"index": 0, "paths": ["app/db.py", "app/views.py"], "tokens": 2100,
 "estimate_usd": 0.0123, "estimate_tokens": 9000}, {"index": 1, "paths": ["app/api.py"], "tokens": 800,
 "estimate_usd": 0.004, "estimate_tokens": 3000}], "estimate_usd": 0.0163, "left_out": ["app/big.py"], "tree_notes": [],
 "unchanged": 1, "related": 1, "carried": ["SQLI"],
 "blobs": {"app/db.py": "b1", "app/views.py": "b2", "app/api.py": "b3"},
 "gone": ["app/old.py"], "parsed": 2, "comment_id": 9001,
 "visibility": "private", "in_diff": []}""".replace('"SQLI"', json.dumps(SQLI))

# What `finish_job` (`_totals`, `publish`) and `upload_status` added to it.
FINISHED = {"files": 3, "candidates": 1, "duplicates": 1, "dropped": [["A guess", "not reachable"]], "unverified": 0,
            "code_asks": [{"title": "User input is formatted into SQL", "path": "app/db.py", "line": 3,
                           "needs": ["run_query"], "outcome": "more code"}],
            "not_audited": {"1": "failed 3 times: 503"},
            "usage": {"prompt_tokens": 5200.0, "cached_tokens": 4096.0, "completion_tokens": 300.0,
                      "cost_usd": 0.0101, "requests": 3.0, "async_requests": 3.0},
            "evidence_dropped": 2, "spent_usd": 0.0101, "carried_count": 1, "findings": [SQLI],
            "category": "reviewbot-audit:main", "publication": {
                "where": "code-scanning", "results": 1, "sarif_id": "s-1", "issue_number": None, "new": 0,
                "cut": [], "reason": "", "status": "complete", "errors": [], "analyses_url": "https://x/analyses",
                "advisory_id": None, "dismissed": []},
            "published": "published to code scanning: 1 alert(s)", "status": "done", "finished": 1764633999.5}

# The first records (before base_branch, repo_url, related, parsed, the chunks' token estimate and the publication
# object): still listed by the dashboard and `audit status` for 30 days. The counts are what a caller of `recent()`
# saved back with the record.
FIRST = {"id": "old1", "installation_id": 42, "repo": "octo/demo", "branch": "main", "sha": "fedcba9876543210",
         "paths": [], "full": True, "incremental": False, "trigger": "schedule", "number": None, "status": "done",
         "created": 1764000000.0, "model": "m", "config": {}, "max_usd": None,
         "chunks": [{"index": 0, "paths": ["a.py"], "tokens": 10, "estimate_usd": 0.001}], "estimate_usd": 0.001,
         "left_out": [], "unchanged": 0, "carried": [], "blobs": {"a.py": "b"}, "gone": [],
         "files": 1, "candidates": 0, "duplicates": 0, "dropped": [], "unverified": 0, "not_audited": {},
         "usage": {"prompt_tokens": 10.0, "cached_tokens": 0.0, "completion_tokens": 5.0, "cost_usd": 0.001,
                   "requests": 1.0, "async_requests": 1.0}, "spent_usd": 0.001, "findings": [],
         "published": "the audit record", "finished": 1764000100.0, "chunks_done": 1, "chunks_failed": 0}


def written_again(record: AuditRecord) -> dict[str, Any]:
    """What `AuditStore.save` stores, read back as JSON."""
    return dict(json.loads(json.dumps(record.as_json())))


def test_a_record_the_planning_job_wrote_loads_typed_and_is_written_back_under_the_same_names() -> None:
    data = json.loads(PLANNED)
    record = AuditRecord.from_json(data)
    assert (record.id, record.installation_id, record.repo, record.comment_id, record.number) == (
        "a1b2", 42, "octo/demo", 9001, 12)
    assert record.chunks == [PlannedChunk(0, ["app/db.py", "app/views.py"], 2100, 0.0123, 9000),
                             PlannedChunk(1, ["app/api.py"], 800, 0.004, 3000)]
    assert record.carried == [SQLI] and record.config == data["config"] and record.gone == ["app/old.py"]
    # Not finished: the totals and the publication are their defaults.
    assert (record.files, record.findings, record.publication, record.usage) == (0, [], None, AuditUsage())
    again = written_again(record)
    assert {k: again[k] for k in data} == data  # every field as it was; the rest are the defaults


def test_a_finished_record_loads_its_totals_and_publication() -> None:
    data = json.loads(PLANNED) | FINISHED
    record = AuditRecord.from_json(data)
    assert record.status == "done" and record.dropped == [("A guess", "not reachable")]
    assert record.usage == AuditUsage(5200.0, 4096.0, 300.0, 0.0101, 3.0, 3.0)
    assert record.usage.as_usage() == Usage(prompt_tokens=5200, cached_tokens=4096, completion_tokens=300,
                                            cost_usd=0.0101, requests=3, async_requests=3)
    assert record.publication == Publication(where="code-scanning", status="complete", results=1, sarif_id="s-1",
                                             analyses_url="https://x/analyses")
    assert record.not_audited == {"1": "failed 3 times: 503"} and record.findings == [SQLI]
    assert record.code_asks == [CodeAsk(SQLI["title"], "app/db.py", 3, ("run_query",), "more code")]
    assert written_again(record) == data


def test_records_of_older_versions_load_with_defaults_for_what_they_lack() -> None:
    record = AuditRecord.from_json(FIRST)
    assert (record.base_branch, record.repo_url, record.related, record.parsed, record.comment_id) == ("", "", 0, 0,
                                                                                                      None)
    assert record.chunks[0].estimate_tokens == 0 and record.publication is None and record.evidence_dropped == 0
    assert category_branch(record) == "main"  # no base branch written: the audited branch's category
    again = written_again(record)
    assert "chunks_done" not in again and "chunks_failed" not in again  # `recent()`'s counts are not the record's
    assert {k: again[k] for k in FIRST if k not in ("chunks_done", "chunks_failed", "chunks")} == {
        k: v for k, v in FIRST.items() if k not in ("chunks_done", "chunks_failed", "chunks")}


def test_a_publication_that_failed_loads_without_the_fields_only_an_upload_has() -> None:
    failed = {"where": "none", "results": 0, "status": "failed", "errors": ["403 Forbidden"], "cut": []}
    record = AuditRecord.from_json(json.loads(PLANNED) | {"publication": failed})
    assert record.publication == Publication(where="none", status="failed", errors=["403 Forbidden"])
    assert record.publication.sarif_id is None and record.publication.issue_number is None


def test_a_chunk_result_as_the_chunk_job_wrote_it_and_an_older_one_load() -> None:
    usage = {"prompt_tokens": 900, "cached_tokens": 512, "completion_tokens": 80, "reasoning_tokens": 0,
             "cost_usd": 0.0042, "requests": 1, "async_requests": 1}
    written = {"findings": [SQLI], "evidence_dropped": 1, "outside": 2, "usage": usage,
               "partial": [["app/big.py", "only the first 60,000 characters were audited"]]}
    result = ChunkResult.from_json(written)
    assert result.usage == Usage(**usage) and result.partial == [("app/big.py",
                                                                  "only the first 60,000 characters were audited")]
    assert json.loads(json.dumps(result.as_json())) == written
    older = ChunkResult.from_json({"findings": [], "outside": 0, "usage": {"prompt_tokens": 5, "cost_usd": 0.5}})
    assert (older.evidence_dropped, older.partial, older.usage) == (0, [], Usage(prompt_tokens=5, cost_usd=0.5))
