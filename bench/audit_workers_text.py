"""The docs/benchmarks.md section of bench/audit_workers.py: one column per run, the targets of issue 23."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

NAMES = {"1": "1 worker", "2": "2 workers", "kill": "2 workers, one SIGKILLed midway"}


def completed(r: dict[str, Any]) -> str:
    ok = r["status"] == "done" and r["publication"] == "complete" and r["sarif_uploads"] == 1 and not r["sarif_errors"]
    return (f"{r['chunks_done']} of {r['chunks']} chunks audited, {r['not_audited']} reported not audited; "
            + ("SARIF upload accepted" if ok else f"NOT COMPLETE ({r['status']}, upload {r['publication']})"))


def twice(r: dict[str, Any]) -> str:
    paid = f"{r['chunk_keys']} chunk and {r['verification_keys']} verification requests, {r['requests_submitted']} " \
           "submissions"
    return f"none ({paid})" if not r["paid_twice"] else f"**{', '.join(r['paid_twice'])}** ({paid})"


def speedup(results: list[dict[str, Any]]) -> float | None:
    by = {r["run"]: r for r in results}
    if "1" in by and "2" in by and by["1"]["chunks_per_min"]:
        return float(by["2"]["chunks_per_min"]) / float(by["1"]["chunks_per_min"])
    return None


def readme_text(results: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    """`meta`: the design measured, the scope, the queue time and poll interval, the limits set."""
    def row(name: str, target: str, cell: Callable[[dict[str, Any]], Any]) -> str:
        return f"| {name} | {target} | " + " | ".join(str(cell(r)) for r in results) + " |"

    scope, limits = meta["scope"], meta["limits"]
    lines = [f"Command: `.venv/bin/python -m bench.audit_workers --scope {scope} --write-readme` ({meta['design']}). "
             f"Django 5.2.2's `{scope}/` from PyPI in the fake GitHub, asked with `reviewbot audit --repo OWNER/NAME "
             f"--path {scope}`; each request waits {meta['queue']:g} s in the fake model's asynchronous queue, polled "
             f"every {meta['poll']:g} s (`REVIEWBOT_ASYNC_POLL`); " + ", ".join(f"`{k}={v}`" for k, v in limits.items())
             + ". Wall time: from the command to the SARIF upload GitHub accepted. Tokens and cost: the fake model's "
             "own billing (prefix cache per `x-session-affinity`), at K2.6 prices.", "",
             "| Measure | Target | " + " | ".join(NAMES.get(r["run"], r["run"]) for r in results) + " |",
             "|---|---|" + "---|" * len(results),
             row("Audit", "completes", completed),
             row("Wall time", "—", lambda r: f"{r['wall_s']:,} s"),
             row("Chunks per minute", "2 workers ≥ 1.6× one", lambda r: r["chunks_per_min"]),
             row("Worker CPU (user+sys), all workers", "—", lambda r: f"{r['worker_cpu_s']:,} s"),
             row("Worker CPU s per million prompt tokens", "≤ 5", lambda r: r["cpu_s_per_m_prompt"]),
             row("Peak RSS of each worker", "—", lambda r: " / ".join(f"{m:g} MB" for m in r["worker_peak_rss_mb"])),
             row("Requests submitted to the queue / answered", "—",
                 lambda r: f"{r['requests_submitted']} / {r['requests_served']}"),
             row("Prompt tokens (cached share)", "≥ 50% cached",
                 lambda r: f"{r['prompt_tokens']:,} ({r['cached_share']:.1%})"),
             row("Estimated cost at K2.6 prices", "≤ $3.00" if scope == "django" else "—",
                 lambda r: f"${r['usd']:.2f}"),
             row("Paid twice", "none", twice),
             row("Findings published", "—", lambda r: r["findings"]),
             row("Load average during the run (1, 5, 15 min; 2 cores)", "—",
                 lambda r: " / ".join(str(v) for v in r["load_avg"]))]
    ratio = speedup(results)
    if ratio is not None:
        lines += ["", f"Two workers against one: **{ratio:.2f}×** the chunks per minute (target ≥ 1.6×)."]
    for r in results:
        if r.get("killed"):
            k = r["killed"]
            survivor = "took its chunks over" if r["took_over"] else "ran no chunk (!)"
            if r.get("handed_over"):
                held, collected = r["handed_over"]
                survivor += (f" ({held} chunk jobs were in the killed worker's hands; {collected} of them had their "
                             "request already queued, and the survivor collected those answers instead of asking "
                             "again)")
            lines += ["", f"SIGKILL: the first worker was killed {k['at_s']} s into the audit with {k['chunks_done']} "
                      f"of {k['chunks']} chunks done; the other worker {survivor} "
                      f"and the audit ended with {r['chunks_done']} audited and {r['not_audited']} reported not "
                      "audited, " + ("nothing paid twice." if not r["paid_twice"] else
                                      f"paid twice: {', '.join(r['paid_twice'])}.")]
    return "\n".join(lines) + "\n"
