"""A full audit of Django 5.2.2's `django/` through the service: `reviewbot audit --repo OWNER/NAME` → Redis →
1 or 2 `reviewbot worker` processes → the fake GitHub serving the repository's tarball → the fake model's
asynchronous queue (each request queued for a few seconds) answering as the offline stand-in; then 2 workers with
one SIGKILLed in the middle. Reports wall time, chunks per minute, the workers' CPU per million billed prompt
tokens, each worker's peak RSS, the fake model's billing, and whether any chunk or verification was paid twice.

    .venv/bin/python -m bench.audit_workers [--scope django/contrib/auth] [--runs 1,2,kill] [--write-readme]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from redis.asyncio import Redis

from bench.audit_paid import cpu_seconds, handed_over, paid
from bench.audit_standin import answer, seen_sinks, sinks
from bench.audit_workers_text import readme_text
from bench.readme import write_section
from bench.realcode import django_repo, tree_files
from bench.worker_load import peak
from reviewbot.audit.service_record import ListedAudit
from reviewbot.audit.service_state import AuditStore
from reviewbot.queue.embedded import EmbeddedRedis
from tests.fakes.github import FakeGitHub
from tests.fakes.github_repos import archive
from tests.fakes.model import FakeModel, answering
from tests.fakes.server import ServedApp
from tests.processes import Process, wait_for

OUT = Path(__file__).parent / "out"
TOKEN = "bench-model-token"
REPO, INSTALLATION = "bench/django", 7001
# What a team that audits would set (printed, and said in docs/benchmarks.md): room for the workers, not a cap.
LIMITS = {"REVIEWBOT_INSTALLATION_CONCURRENCY": "8", "REVIEWBOT_MAX_JOBS": "50", "REVIEWBOT_MODEL_RPM": "240",
          "REVIEWBOT_DAILY_BUDGET_USD": "50", "REVIEWBOT_REPO_DAILY_BUDGET_USD": "25"}


def standin(known: dict[str, list[Any]]) -> Any:
    """The fake model's answers: the known sinks of every file the prompt shows; every candidate confirmed."""
    def review(request: dict[str, Any]) -> str:
        shown = "\n".join(str(m.get("content")) for m in request["messages"] if m.get("role") == "user")
        return answer(seen_sinks(shown, known))
    return answering(review)


def environment(args: argparse.Namespace, github: FakeGitHub, model: FakeModel, redis_url: str,
                data: Path) -> dict[str, str]:
    return {"GITHUB_APP_ID": "4242", "GITHUB_PRIVATE_KEY": args.key, "GITHUB_API_URL": github.base_url,
            "REDIS_URL": redis_url, "REVIEWBOT_MODEL_BASE_URL": f"{model.url}/client/v4/accounts/a/ai/v1",
            "CLOUDFLARE_API_TOKEN": TOKEN, "GITHUB_WEBHOOK_SECRET": "bench-secret", "REVIEWBOT_APP_SLUG": "bench",
            "REVIEWBOT_ASYNC_POLL": str(args.poll), "REVIEWBOT_JOB_TIMEOUT": "900", "REVIEWBOT_DATA_DIR": str(data),
            **LIMITS, **({"REVIEWBOT_AUDIT_CHUNK_TOKENS": str(args.chunk_tokens)} if args.chunk_tokens else {})}


async def latest(redis_url: str) -> ListedAudit | None:
    client = Redis.from_url(redis_url)
    try:
        return next(iter(await AuditStore(client).recent()), None)
    finally:
        await client.aclose()


def usage(pid: int) -> dict[str, float]:
    """A live process's CPU (user+sys, its waited-for children included) and peak RSS."""
    _, hwm = peak(pid)
    return {"cpu_s": cpu_seconds(Path(f"/proc/{pid}/stat").read_text(), os.sysconf("SC_CLK_TCK")),
            "peak_rss_mb": round(hwm, 1)}


def finished(audit: ListedAudit | None) -> bool:
    """Done, and its publication settled (code scanning processed the upload, or the fallback was written)."""
    publication = audit.record.publication if audit is not None else None
    return (audit is not None and audit.record.status == "done"
            and (publication.status if publication is not None else None) != "processing")


def run(name: str, workers: int, kill: bool, args: argparse.Namespace, files: dict[str, str],
        known: dict[str, list[Any]], public: bytes) -> dict[str, Any]:
    github, model = FakeGitHub(app_id=4242, public_key_pem=public), FakeModel(api_token=TOKEN)
    # Queue time in seconds, not in polls: a request polled after it is due is answered at that poll.
    model.async_queue_s, model.async_polls_before_done, model.default = args.queue, 0, standin(known)
    data = Path(tempfile.mkdtemp(prefix="rb-aw-", dir="/tmp"))  # short: the Redis socket path must stay legal
    redis = EmbeddedRedis(data / "redis")
    with ServedApp(github.app) as served_github, ServedApp(model.app) as served_model:
        github.base_url, model.url = served_github.url, served_model.url
        github.add_installation(INSTALLATION, [REPO])
        archive(github, REPO, github.set_branch(REPO, "main", files))  # GitHub's archive cache, warm
        url = redis.start()
        procs: list[Process] = []
        seen: dict[int, dict[str, float]] = {}
        try:
            for i in range(workers):
                env = environment(args, github, model, url, data / "workers")  # one data dir, as in one checkout
                (OUT / f"audit_workers-{name}-{i}.log").unlink(missing_ok=True)
                procs.append(Process(["worker"], env, data, OUT / f"audit_workers-{name}-{i}.log"))
            wait_for(lambda: all("worker started" in p.text() for p in procs), 60, "the workers to start")
            harness_cpu, started = time.process_time(), time.monotonic()
            asked = subprocess.run([sys.executable, "-m", "reviewbot", "audit", "--repo", REPO, "--path", args.scope],
                                   env={**os.environ, **environment(args, github, model, url, data / "cli")},
                                   capture_output=True, text=True, timeout=120)
            if asked.returncode != 0:
                raise SystemExit(f"`reviewbot audit --repo` failed: {asked.stderr}")
            killed: dict[str, Any] = {}
            deadline = started + args.timeout
            while not finished(audit := asyncio.run(latest(url))) and time.monotonic() < deadline:
                if kill and not killed and audit and audit.chunks_done >= len(audit.record.chunks) // 2:
                    seen[0] = usage(procs[0].proc.pid)
                    procs[0].kill()
                    killed = {"at_s": round(time.monotonic() - started, 1), "chunks_done": audit.chunks_done,
                              "chunks": len(audit.record.chunks)}
                time.sleep(0.5)
            wall = time.monotonic() - started
            harness_cpu = time.process_time() - harness_cpu
            seen |= {i: usage(p.proc.pid) for i, p in enumerate(procs) if p.proc.poll() is None}
        finally:
            for p in procs:
                p.stop()
            redis.stop()
            shutil.rmtree(data, ignore_errors=True)
    return result(name, workers, killed, audit, wall, harness_cpu, seen, github, model, procs)


def result(name: str, workers: int, killed: dict[str, Any], audit: ListedAudit | None, wall: float,
           harness_cpu: float, seen: dict[int, dict[str, float]], github: FakeGitHub, model: FakeModel,
           procs: list[Process]) -> dict[str, Any]:
    record = audit.record if audit is not None else None
    bill = paid(model.async_calls, model.served)
    uploads = list(github.sarif_uploads.values())
    chunks = len(record.chunks) if record else 0
    cpu = sum(s["cpu_s"] for s in seen.values())
    return {
        "run": name, "workers": workers, "killed": killed or None, "status": record.status if record else None,
        "chunks": chunks, "chunks_done": audit.chunks_done if audit else None,
        "not_audited": len(record.not_audited) if record else 0,
        "findings": len(record.findings) if record else 0, "wall_s": round(wall, 1),
        "chunks_per_min": round(chunks / wall * 60, 2) if wall else 0.0,
        "worker_cpu_s": round(cpu, 1), "cpu_s_per_m_prompt": round(cpu / (bill.prompt / 1e6), 2) if bill.prompt else 0,
        "worker_peak_rss_mb": [seen[i]["peak_rss_mb"] for i in sorted(seen)], "harness_cpu_s": round(harness_cpu, 1),
        "requests_submitted": bill.submitted, "requests_served": bill.served, "chunk_keys": bill.chunks,
        "verification_keys": bill.verifications, "paid_twice": bill.twice, "prompt_tokens": bill.prompt,
        "cached_share": round(bill.cache_share, 4), "usd": round(bill.usd, 2), "record_spent_usd":
        audit.spent_usd if audit else None, "estimate_usd": record.estimate_usd if record else None,
        "sarif_uploads": len(uploads), "sarif_errors": sum(len(u["errors"]) for u in uploads),
        "publication": record.publication.status if record and record.publication else None,
        "took_over": bool(workers > 1 and "audit_chunk" in procs[-1].text()),
        "handed_over": handed_over(procs[0].text(), procs[-1].text()) if killed else None,
        "load_avg": [round(v, 2) for v in os.getloadavg()], "violations": model.violations[:5],
    }


def design() -> str:
    """Which design of the service's chunk jobs this checkout has (the audit planner since [planner-service ready])."""
    root = Path(__file__).parent.parent
    head = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h"], capture_output=True, text=True).stdout
    ready = subprocess.run(["git", "-C", str(root), "log", "--oneline", "--grep", "planner-service ready"],
                           capture_output=True, text=True).stdout.strip()
    kind = "the audit planner's chunks" if ready else "chunks as added-file diffs, before the audit planner"
    return f"commit {head.strip()}: {kind}"


def service_arguments(parser: argparse.ArgumentParser, *, out: Path, section: str) -> None:
    """The options of both service benchmarks (this one and bench/audit_batch.py): the fake queue, the time limit,
    where the results go and which docs/benchmarks.md section they are written to."""
    parser.add_argument("--queue", type=float, default=5.0, help="seconds each request waits in the fake queue")
    parser.add_argument("--poll", type=float, default=2.0, help="REVIEWBOT_ASYNC_POLL")
    parser.add_argument("--timeout", type=float, default=3_600.0)
    parser.add_argument("--out", type=Path, default=out, help="where the results go")
    parser.add_argument("--from-json", type=Path, nargs="+", help="no run: write the section from saved results")
    parser.add_argument("--section", default=section, help="the docs/benchmarks.md section written")
    parser.add_argument("--write-readme", action="store_true")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--scope", default="django", help="the folder audited (default: django)")
    parser.add_argument("--runs", default="1,2,kill", help="1 and 2 workers, and 2 with one SIGKILLed midway")
    parser.add_argument("--chunk-tokens", type=int, default=0, help="REVIEWBOT_AUDIT_CHUNK_TOKENS (default: unset)")
    service_arguments(parser, out=OUT / "audit_workers.json", section="audit-service")
    args = parser.parse_args()
    if args.from_json:
        saved = [json.loads(p.read_text()) for p in args.from_json]
        meta, results = saved[0]["meta"], [r for s in saved for r in s["results"]]
    else:
        meta, results = measure(args)
        args.out.parent.mkdir(exist_ok=True)
        args.out.write_text(json.dumps({"meta": meta, "results": results}, indent=2))
    if args.write_readme:
        write_section(args.section, readme_text(results, meta))


def signing_key() -> tuple[str, bytes]:
    """The App's private key (PEM, for the workers) and its public half (for the fake GitHub)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    return private, key.public_key().public_bytes(serialization.Encoding.PEM,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo)


def measure(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    OUT.mkdir(exist_ok=True)
    args.key, public = signing_key()
    meta = {"design": design(), "scope": args.scope, "queue": args.queue, "poll": args.poll, "limits": LIMITS,
            "chunk_tokens": args.chunk_tokens}
    files = tree_files(django_repo(), "v5.2.2")
    known = sinks({p: t for p, t in files.items() if p.startswith(args.scope + "/") and p.endswith(".py")})
    print("limits:", " ".join(f"{k}={v}" for k, v in LIMITS.items()), f"queue {args.queue:g} s, poll {args.poll:g} s")
    results = []
    for name in args.runs.split(","):
        results.append(run(name, 1 if name == "1" else 2, name == "kill", args, files, known, public))
        print(json.dumps(results[-1]), flush=True)
    return meta, results


if __name__ == "__main__":
    main()
