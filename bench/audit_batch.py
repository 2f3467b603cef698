"""Several audits at once through the service, as the reference user audits many codebases: Django 5.2.2's `django/`
split into N repositories of similar size in the fake GitHub (whole top-level packages, `db/` and `contrib/` by
their subpackages), N `reviewbot audit --repo OWNER/NAME` started together, 1 or 2 `reviewbot worker` processes.
Reports chunks per minute over the whole batch, worker CPU per million billed prompt tokens, peak RSS, and whether
any request was paid twice (per audit: its affinity and the work a request asks for).

    .venv/bin/python -m bench.audit_batch [--audits 4] [--installations 1] [--runs 1,2] [--write-readme]
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
from collections import Counter
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from bench.audit_batch_text import batch_text, drain_rate
from bench.audit_paid import paid, request_key
from bench.audit_standin import sinks
from bench.audit_workers import (
    LIMITS,
    OUT,
    TOKEN,
    design,
    environment,
    finished,
    service_arguments,
    signing_key,
    standin,
    usage,
)
from bench.readme import write_section
from bench.realcode import django_repo, tree_files
from reviewbot.audit.service_record import ListedAudit
from reviewbot.audit.service_state import AuditStore
from reviewbot.queue.embedded import EmbeddedRedis
from tests.fakes.github import FakeGitHub
from tests.fakes.github_repos import archive
from tests.fakes.model import FakeModel
from tests.fakes.server import ServedApp
from tests.processes import Process

FIRST_INSTALLATION = 7101


def package(path: str) -> str:
    """The unit a split moves whole: `django/<pkg>`, or `django/<pkg>/<sub>` inside the two largest packages."""
    parts = path.split("/")
    return "/".join(parts[:3] if parts[1] in ("db", "contrib") and len(parts) > 3 else parts[:2])


def split(files: dict[str, str], n: int) -> list[dict[str, str]]:
    """`django/` in n parts of similar Python size (largest package first, into the smallest part so far)."""
    sizes = Counter[str]()
    for path, text in files.items():
        if path.startswith("django/") and path.endswith(".py"):  # what the audit reads (not static files, locales)
            sizes[package(path)] += len(text)
    parts: list[dict[str, str]] = [{} for _ in range(n)]
    weight = [0] * n
    for unit, size in sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0])):
        i = weight.index(min(weight))
        weight[i] += size
        parts[i] |= {p: t for p, t in files.items() if p.startswith("django/") and package(p) == unit}
    return parts


async def records(redis_url: str) -> list[ListedAudit]:
    client = Redis.from_url(redis_url)
    try:
        return await AuditStore(client).recent(1_000)
    finally:
        await client.aclose()


def run(workers: int, args: argparse.Namespace, split_parts: list[dict[str, str]], known: dict[str, list[Any]],
        public: bytes) -> dict[str, Any]:
    parts = split_parts * args.copies  # each copy its own repository: its own audit, affinity and budget
    github, model = FakeGitHub(app_id=4242, public_key_pem=public), FakeModel(api_token=TOKEN)
    model.async_queue_s, model.async_polls_before_done, model.default = args.queue, 0, standin(known)
    data = Path(tempfile.mkdtemp(prefix="rb-ab-", dir="/tmp"))
    redis = EmbeddedRedis(data / "redis")
    repos = [f"bench/django-{i // len(split_parts) + 1}-{i % len(split_parts) + 1}" for i in range(len(parts))]
    name = f"batch{workers}"
    with ServedApp(github.app) as served_github, ServedApp(model.app) as served_model:
        github.base_url, model.url = served_github.url, served_model.url
        for i, (repo, files) in enumerate(zip(repos, parts, strict=True)):
            installation = FIRST_INSTALLATION + (i % args.installations)
            if installation not in github.installations:
                github.add_installation(installation, [r for j, r in enumerate(repos)
                                                       if j % args.installations == i % args.installations])
            archive(github, repo, github.set_branch(repo, "main", files))  # GitHub's archive cache, warm
        url = redis.start()
        procs: list[Process] = []
        done_at: dict[str, float] = {}
        try:
            # The backlog first (a Python process per command, started together: their start-up is not the
            # workers' work), then the workers, timed from their launch: throughput on a queue of audits.
            cli_env = {**os.environ, **environment(args, github, model, url, data / "cli")}
            asked = [subprocess.Popen([sys.executable, "-m", "reviewbot", "audit", "--repo", repo, "--path", "django"],
                                      env=cli_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                     for repo in repos]
            for proc in asked:
                if proc.wait(timeout=120) != 0:
                    said = proc.stderr.read().decode() if proc.stderr else ""
                    raise SystemExit(f"`reviewbot audit --repo` failed: {said}")
            started, harness_cpu = time.monotonic(), time.process_time()
            for i in range(workers):
                (OUT / f"audit_batch-{name}-{i}.log").unlink(missing_ok=True)
                # One data dir for the workers of this machine, as `reviewbot worker` started twice in one
                # checkout has: one repository cache, one facts cache.
                procs.append(Process(["worker"], environment(args, github, model, url, data / "workers"), data,
                                     OUT / f"audit_batch-{name}-{i}.log"))
            deadline = started + args.timeout
            while len(done_at) < len(repos) and time.monotonic() < deadline:
                for audit in asyncio.run(records(url)):
                    if finished(audit) and audit.record.repo not in done_at:
                        done_at[audit.record.repo] = round(time.monotonic() - started, 1)
                time.sleep(0.5)
            wall, harness_cpu = time.monotonic() - started, time.process_time() - harness_cpu
            seen = {i: usage(p.proc.pid) for i, p in enumerate(procs) if p.proc.poll() is None}
            final = asyncio.run(records(url))
        finally:
            for p in procs:
                p.stop()
            redis.stop()
            shutil.rmtree(data, ignore_errors=True)
    return result(name, workers, final, done_at, wall, seen, github, model, procs) | {
        "harness_cpu_s": round(harness_cpu, 1)}  # the fake GitHub and fake model (threads of this process)


def result(name: str, workers: int, final: list[ListedAudit], done_at: dict[str, float], wall: float,
           seen: dict[int, dict[str, float]], github: FakeGitHub, model: FakeModel,
           procs: list[Process]) -> dict[str, Any]:
    bill = paid(model.async_calls, model.served)
    # Per audit: the same chunk number exists in every audit, so the work key is paired with the audit's affinity.
    keys = Counter(f"{affinity} {request_key(body)}" for body, affinity, _ in model.queued.values())
    chunks = sum(len(a.record.chunks) for a in final)
    cpu = sum(s["cpu_s"] for s in seen.values())
    uploads = list(github.sarif_uploads.values())
    return {
        "run": name, "workers": workers, "audits": len(final), "done": sum(a.record.status == "done" for a in final),
        "chunks": chunks, "chunks_done": sum(a.chunks_done for a in final),
        "chunks_per_audit": sorted(len(a.record.chunks) for a in final),
        "not_audited": sum(len(a.record.not_audited) for a in final),
        "findings": sum(len(a.record.findings) for a in final), "wall_s": round(wall, 1),
        "audit_done_s": sorted(done_at.values()),
        "chunks_per_min": round(chunks / wall * 60, 2) if wall else 0.0, "worker_cpu_s": round(cpu, 1),
        "cpu_s_per_m_prompt": round(cpu / (bill.prompt / 1e6), 2) if bill.prompt else 0,
        "worker_peak_rss_mb": [seen[i]["peak_rss_mb"] for i in sorted(seen)],
        "requests_submitted": bill.submitted, "requests_served": bill.served,
        "paid_twice": sorted(k for k, n in keys.items() if n > 1), "prompt_tokens": bill.prompt,
        "cached_share": round(bill.cache_share, 4), "usd": round(bill.usd, 2),
        "sarif_uploads": len(uploads), "sarif_errors": sum(len(u["errors"]) for u in uploads),
        "chunk_jobs_run": [p.text().count("audit_chunk(") for p in procs],
        "plans": [p.text().count("audit planned") for p in procs],
        "plan_handoffs": [p.text().count(":plan_audit retrying") for p in procs],
        "steady_audits_per_min": drain_rate(sorted(done_at.values())),
        "worker_busy": round(cpu / (wall * len(seen)), 2) if wall and seen else 0.0,
        "load_avg": [round(v, 2) for v in os.getloadavg()], "violations": model.violations[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--audits", type=int, default=4, help="parts django/ is split into")
    parser.add_argument("--copies", type=int, default=1, help="repositories per part (audits: audits × copies)")
    parser.add_argument("--installations", type=int, default=1, help="installations the repositories spread over")
    parser.add_argument("--runs", default="1,2", help="worker processes per run")
    service_arguments(parser, out=OUT / "audit_batch.json", section="audit-batch")
    args = parser.parse_args()
    args.chunk_tokens = 0
    if args.from_json:  # one table per saved run (their settings differ)
        saved = [json.loads(p.read_text()) for p in args.from_json]
    else:
        meta, results = measure(args)
        saved = [{"meta": meta, "results": results}]
        args.out.parent.mkdir(exist_ok=True)
        args.out.write_text(json.dumps(saved[0], indent=2))
    if args.write_readme:
        write_section(args.section, "\n".join(batch_text(s["results"], s["meta"]) for s in saved))


def measure(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    OUT.mkdir(exist_ok=True)
    args.key, public = signing_key()
    files = tree_files(django_repo(), "v5.2.2")
    parts = split(files, args.audits)
    known = sinks({p: t for p, t in files.items() if p.startswith("django/") and p.endswith(".py")})
    meta = {"design": design(), "audits": args.audits, "copies": args.copies, "installations": args.installations,
            "queue": args.queue, "poll": args.poll, "limits": LIMITS, "backlog": True,
            "parts": [{"files": len(p), "packages": sorted({package(f) for f in p}),
                       "chars": sum(len(t) for f, t in p.items() if f.endswith(".py"))} for p in parts]}
    print(json.dumps(meta["parts"]), flush=True)
    results = []
    for workers in (int(w) for w in args.runs.split(",")):
        results.append(run(workers, args, parts, known, public))
        print(json.dumps(results[-1]), flush=True)
    return meta, results


if __name__ == "__main__":
    main()
