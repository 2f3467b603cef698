"""The service audit benchmark's pure helpers: what counts as the same work paid twice, and CPU from /proc."""

from __future__ import annotations

import json

from bench.audit_paid import cpu_seconds, handed_over, paid, request_key
from bench.audit_workers_text import readme_text
from tests.fakes.model import VERIFY_HEADER


def chunk(part: int, of: int, code: str = "x = 1") -> dict[str, object]:
    return {"messages": [{"role": "system", "content": "You audit."},
                         {"role": "user", "content": f"# Overview\n\n## Part {part} of {of}: the files\n{code}"}]}


def verification(titles: list[str]) -> dict[str, object]:
    block = "\n".join(f"### Candidate {i}: {t}" for i, t in enumerate(titles, 1))
    return {"messages": [*chunk(1, 3)["messages"], {"role": "assistant", "content": "{}"},
                         {"role": "user", "content": f"{VERIFY_HEADER}\n\n{block}"}]}


def usage(prompt: int, cached: int) -> dict[str, object]:
    return {"usage": {"prompt_tokens": prompt, "completion_tokens": 10,
                      "prompt_tokens_details": {"cached_tokens": cached}}}


def test_a_chunk_asked_again_after_a_crash_counts_as_paid_twice_even_if_its_prompt_changed() -> None:
    calls = [{"requests": [chunk(1, 3)]}, {"request_id": "abc"}, {"requests": [chunk(2, 3)]},
             {"requests": [chunk(2, 3, "x = 2")]}, {"requests": [verification(["SQL"])]},
             {"requests": [verification(["XSS"])]}]
    bill = paid(calls, [usage(1_000, 0), usage(1_000, 640)])
    assert bill.submitted == 5 and bill.chunks == 2 and bill.verifications == 2  # polls are not submissions
    assert bill.twice == ["chunk part 2 of 3"]
    assert bill.prompt == 2_000 and bill.cache_share == 0.32 and bill.usd > 0
    assert request_key(verification(["SQL"])) == request_key(verification(["SQL"])) != request_key(
        verification(["XSS"]))
    # A queued request ends with the same closing line on every batch: the candidates still tell them apart.
    closing = {"role": "user", "content": "Stop using tools now and answer with the JSON object only."}
    sql, xss = (verification([t]) for t in ("SQL", "XSS"))
    assert request_key({"messages": [*sql["messages"], closing]}) != request_key({"messages": [*xss["messages"],
                                                                                              closing]})
    older = {"messages": [{"role": "user", "content": "...\nSecurity audit of django/db, part 2 of 9\n..."}]}
    assert request_key(older) == "chunk part 2 of 9"


def test_cpu_seconds_add_user_system_and_waited_children_whatever_the_command_name() -> None:
    stat = "4242 (reviewbot (w) 1) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 30 20 20 0 3 0 1 2 3"
    assert cpu_seconds(stat, 100) == 3.5  # (250 + 50 + 30 + 20) ticks


def test_the_section_says_the_speedup_and_what_the_kill_cost() -> None:
    base = {"status": "done", "publication": "complete", "sarif_uploads": 1, "sarif_errors": 0, "chunks": 10,
            "chunks_done": 10, "not_audited": 0, "wall_s": 60.0, "worker_cpu_s": 20.0, "cpu_s_per_m_prompt": 2.0,
            "worker_peak_rss_mb": [300.0], "requests_served": 12, "prompt_tokens": 10_000_000, "cached_share": 0.6,
            "usd": 2.5, "paid_twice": [], "chunk_keys": 10, "verification_keys": 2, "requests_submitted": 12,
            "findings": 7, "load_avg": [2.0, 2.0, 2.0], "killed": None, "took_over": False}
    results = [base | {"run": "1", "chunks_per_min": 10.0},
               base | {"run": "2", "chunks_per_min": 17.0, "worker_peak_rss_mb": [300.0, 310.0]},
               base | {"run": "kill", "chunks_per_min": 12.0, "took_over": True, "paid_twice": ["chunk part 4 of 10"],
                       "killed": {"at_s": 30.0, "chunks_done": 5, "chunks": 10}}]
    meta = {"design": "commit abc", "scope": "django", "queue": 5.0, "poll": 2.0,
            "limits": {"REVIEWBOT_INSTALLATION_CONCURRENCY": "8"}}
    text = readme_text(results, meta)
    assert "**1.70×** the chunks per minute" in text
    assert "killed 30.0 s into the audit with 5 of 10 chunks done" in text and "chunk part 4 of 10" in text
    assert "300 MB / 310 MB" in text and "`REVIEWBOT_INSTALLATION_CONCURRENCY=8`" in text


def test_chunks_the_killed_worker_had_queued_are_counted_when_the_survivor_settles_them() -> None:
    def line(msg: str, job: str = "") -> str:
        return json.dumps({"msg": msg, "job_id": job})

    killed = "\n".join([line("0.1s → reviewbot:audit-chunk:a1:0:audit_chunk('a1', 0)"),
                        line("0.1s → reviewbot:audit-chunk:a1:1:audit_chunk('a1', 1)"),
                        line("model request queued asynchronously", "reviewbot:audit-chunk:a1:1"),
                        line("0.1s → reviewbot:audit-chunk:a1:2:audit_chunk('a1', 2)"),
                        line("0.3s ← reviewbot:audit-chunk:a1:2:audit_chunk ● {'outcome': 'audited'}")])
    survivor = "\n".join([line("9s ← reviewbot:audit-chunk:a1:0:audit_chunk ● {'outcome': 'audited'}"),
                          line("9s ← reviewbot:audit-chunk:a1:1:audit_chunk ● {'outcome': 'audited'}"),
                          "not json"])
    assert handed_over(killed, survivor) == (2, 1)
