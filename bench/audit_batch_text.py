"""The docs/benchmarks.md section of bench/audit_batch.py: one column per run, the scale-out target of issue 23."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _completed(r: dict[str, Any]) -> str:
    ok = r["done"] == r["audits"] and r["sarif_uploads"] == r["audits"] and not r["sarif_errors"]
    return (f"{r['done']} of {r['audits']} audits done, {r['chunks_done']} of {r['chunks']} chunks audited, "
            f"{r['not_audited']} reported not audited; "
            + (f"{r['sarif_uploads']} SARIF uploads accepted" if ok else "NOT COMPLETE"))


def _twice(r: dict[str, Any]) -> str:
    return f"none ({r['requests_submitted']} submissions)" if not r["paid_twice"] else \
        f"**{len(r['paid_twice'])} requests** ({r['requests_submitted']} submissions)"


def drain_rate(done: list[float]) -> float:
    """Audits finished per minute while the workers drain a backlog: the least-squares slope of the finished count
    over the times the audits finished at, so neither the first audit's latency (its plan, two queue waits, the
    upload, however many workers run) nor any single finish time decides it."""
    n = len(done)
    if n < 2 or done[-1] == done[0]:
        return 0.0
    mean_t, mean_k = sum(done) / n, (n + 1) / 2
    spread = sum((t - mean_t) ** 2 for t in done)
    return round(60 * sum((t - mean_t) * (k - mean_k) for k, t in enumerate(sorted(done), 1)) / spread, 2)


def batch_speedup(results: list[dict[str, Any]], measure: str = "chunks_per_min") -> float | None:
    by = {r["workers"]: r for r in results}
    if 1 in by and 2 in by and by[1].get(measure):
        return float(by[2][measure]) / float(by[1][measure])
    return None


def r_n(results: list[dict[str, Any]]) -> int:
    return int(results[0]["audits"])


def batch_text(results: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    def row(name: str, target: str, cell: Callable[[dict[str, Any]], Any]) -> str:
        return f"| {name} | {target} | " + " | ".join(str(cell(r)) for r in results) + " |"

    parts = "; ".join(f"{p['files']} files, {p['chars'] / 1e6:.2f}M characters of Python" for p in meta["parts"])
    where = "one installation" if meta["installations"] == 1 else f"{meta['installations']} installations"
    copies, n = meta.get("copies", 1), meta["audits"] * meta.get("copies", 1)
    held = f"each part in {copies} repositories (copies), " if copies > 1 else ""
    lines = [f"Command: `.venv/bin/python -m bench.audit_batch --audits {meta['audits']} --copies {copies} "
             f"--installations {meta['installations']} --write-readme` ({meta['design']}). Django 5.2.2's `django/` "
             f"split into {meta['audits']} parts of similar size ({parts}), {held}{n} repositories of the fake GitHub "
             f"in {where}, {n} `reviewbot audit --repo OWNER/NAME --path django` "
             + ("queued before the workers start (the workers of one machine share one data dir; the fake GitHub's "
                "archives built beforehand, as GitHub serves them from its cache)" if meta.get("backlog")
                else "started together")
             + f"; each request waits {meta['queue']:g} s in the fake model's queue, polled every {meta['poll']:g} s; "
             + ", ".join(f"`{k}={v}`" for k, v in meta["limits"].items())
             + (". Wall time: from starting the workers to the last of the SARIF uploads GitHub accepted."
                if meta.get("backlog") else ". Wall time: from the commands to the last of the SARIF uploads GitHub "
                "accepted."), "",
             "| Measure | Target | " + " | ".join(f"{r['workers']} worker(s)" for r in results) + " |",
             "|---|---|" + "---|" * len(results),
             row("Audits", "complete", _completed),
             row("Wall time (each audit done at)", "—",
                 lambda r: f"{r['wall_s']:,} s ({', '.join(f'{s:g}' for s in r['audit_done_s'])} s)"),
             row("Audits finished per minute while draining (slope of finished over time)", "2 workers ≥ 1.6× one",
                 lambda r: r.get("steady_audits_per_min", "not measured")),
             row("Chunks per minute, whole batch (wall time)", "—", lambda r: r["chunks_per_min"]),
             row("Plans per worker (handed back to the queue)", "—",
                 lambda r: " / ".join(f"{p} ({h})" for p, h in zip(r["plans"], r["plan_handoffs"], strict=True))
                 if "plans" in r else "not measured"),
             row("Chunk job tries per worker", "—", lambda r: " / ".join(str(n) for n in r["chunk_jobs_run"])),
             row("Worker CPU (user+sys), all workers", "—", lambda r: f"{r['worker_cpu_s']:,} s"),
             row("Worker CPU per worker per second of wall time", "—",
                 lambda r: f"{r['worker_busy']:.2f}" if "worker_busy" in r else "not measured"),
             row("CPU of the fakes (GitHub and model, one process)", "—",
                 lambda r: f"{r['harness_cpu_s']:,} s" if "harness_cpu_s" in r else "not measured"),
             row("Worker CPU s per million prompt tokens", "≤ 5", lambda r: r["cpu_s_per_m_prompt"]),
             row("Peak RSS of each worker", "—", lambda r: " / ".join(f"{m:g} MB" for m in r["worker_peak_rss_mb"])),
             row("Prompt tokens (cached share)", "—", lambda r: f"{r['prompt_tokens']:,} ({r['cached_share']:.1%})"),
             row("Estimated cost at K2.6 prices, whole batch", "—", lambda r: f"${r['usd']:.2f}"),
             row("Paid twice", "none", _twice),
             row("Load average at the end (1, 5, 15 min; 2 cores)", "—",
                 lambda r: " / ".join(str(v) for v in r["load_avg"]))]
    if (steady := batch_speedup(results, "steady_audits_per_min")) is not None:
        wall = batch_speedup(results) or 0.0
        lines += ["", f"Two workers against one, {r_n(results)} audits queued: **{steady:.2f}×** the audits finished "
                  f"per minute (target ≥ 1.6×); {wall:.2f}× the chunks per minute of wall time, which counts the "
                  "latency every audit has however many workers run."]
    elif (ratio := batch_speedup(results)) is not None:
        lines += ["", f"Two workers against one, {r_n(results)} audits at once: **{ratio:.2f}×** the chunks per "
                  "minute (target ≥ 1.6×)."]
    return "\n".join(lines) + "\n"
