"""The worker under load: 200 reviews queued at once, one `reviewbot worker` process, the fake GitHub and a fake
model that takes 2 s per answer (both on 127.0.0.1). Reports whether every review completed (one review and one
completed check run per PR), the wall time, the worker's peak memory, and the per-installation limit as seen
from the fake model's request timestamps.

    .venv/bin/python -m bench.worker_load [--write-readme]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from arq import create_pool
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bench.readme import write_section
from reviewbot.queue import functions
from reviewbot.queue.embedded import EmbeddedRedis
from reviewbot.queue.enqueue import enqueue_review
from reviewbot.queue.request import ReviewRequest
from reviewbot.queue.worker import redis_settings
from reviewbot.review.engine import affinity_id
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.fakes.server import ServedApp

OUT = Path(__file__).parent / "out"
TOKEN = "bench-model-token"
BASE = {f"app/mod{i}.py": "".join(f"def f{i}_{k}(x):\n    return x + {k}\n\n\n" for k in range(30)) for i in range(8)}


def finding(path: str) -> dict[str, Any]:
    return {"path": path, "line": 2, "start_line": None, "side": "RIGHT", "severity": "minor", "category": "bug",
            "title": "Off by one", "body": "This returns one more than before.", "suggestion": None,
            "confidence": 0.8}


def peak(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) in MB from /proc (VmHWM is the kernel's high-water mark)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def overlap(spans: list[tuple[float, float]]) -> int:
    """The most intervals open at one instant."""
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans], key=lambda e: (e[0], e[1]))
    now = most = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


async def enqueue_all(redis_url: str, pulls: list[tuple[int, str, dict[str, Any]]]) -> None:
    pool = await create_pool(redis_settings(redis_url), job_serializer=functions.serialize,
                             job_deserializer=functions.deserialize)
    try:
        for installation, repo, pull in pulls:
            request = ReviewRequest(installation, repo, pull["number"], pull["head"]["sha"], trigger="opened",
                                    run=f"bench-{repo}-{pull['number']}")
            await enqueue_review(pool, request)
    finally:
        await pool.aclose()


def run(args: argparse.Namespace, github: FakeGitHub, model: FakeModel, redis_url: str, data: Path) -> dict[str, Any]:
    pulls = []
    for i in range(args.installations):
        repo = f"org{i}/widgets"
        github.add_installation(5000 + i, [repo])
        for n in range(1, args.prs // args.installations + 1):
            head = {**BASE, f"app/mod{n % 8}.py": BASE[f"app/mod{n % 8}.py"].replace("x + 1\n", f"x + {n + 1}\n")}
            pulls.append((5000 + i, repo, github.add_pull(repo, n, base_files=BASE, head_files=head)))
    model.default = lambda body: findings_json([finding("app/mod1.py")], "One small problem.")
    env = {**os.environ, "GITHUB_APP_ID": "4242", "GITHUB_PRIVATE_KEY": args.key, "GITHUB_API_URL": github.base_url,
           "REDIS_URL": redis_url, "REVIEWBOT_MODEL_BASE_URL": f"{model.url}/client/v4/accounts/a/ai/v1",
           "CLOUDFLARE_API_TOKEN": TOKEN, "GITHUB_WEBHOOK_SECRET": "bench-secret",
           "REVIEWBOT_INSTALLATION_CONCURRENCY": str(args.limit),
           "REVIEWBOT_MAX_JOBS": str(args.max_jobs), "REVIEWBOT_MODEL_RPM": "100000", "REVIEWBOT_APP_SLUG": "bench",
           "REVIEWBOT_WRITE_INTERVAL": str(args.write_interval), "REVIEWBOT_DATA_DIR": str(data / "worker"),
           "REVIEWBOT_JOB_TIMEOUT": "600"}
    with (OUT / "worker_load.log").open("wb") as log:
        worker = subprocess.Popen([sys.executable, "-m", "reviewbot", "worker"], env=env, stdout=log,
                                  stderr=subprocess.STDOUT)
    try:
        for _ in range(300):
            if b"worker started" in (OUT / "worker_load.log").read_bytes() or worker.poll() is not None:
                break
            time.sleep(0.1)
        if worker.poll() is not None:
            raise SystemExit(f"the worker exited; see {OUT / 'worker_load.log'}")
        idle, _ = peak(worker.pid)
        started = time.monotonic()
        asyncio.run(enqueue_all(redis_url, pulls))
        deadline = started + args.timeout
        while time.monotonic() < deadline:
            done = sum(1 for r in github.check_runs.values() if r["status"] == "completed")
            if done >= len(pulls):
                break
            time.sleep(0.2)
        wall = time.monotonic() - started
        rss, hwm = peak(worker.pid)
    finally:
        worker.terminate()
        worker.wait(timeout=120)
    return report(args, github, model, pulls, wall, idle, rss, hwm)


def report(args: argparse.Namespace, github: FakeGitHub, model: FakeModel, pulls: list[tuple[int, str, Any]],
           wall: float, idle: float, rss: float, hwm: float) -> dict[str, Any]:
    owner = {affinity_id("pr", inst, repo, pull["number"]): inst for inst, repo, pull in pulls}
    spans: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for request in model.requests:
        spans[owner[request.headers["x-session-affinity"]]].append((request.started, request.finished or 1e18))
    reviews = [len(github.reviews[(repo, pull["number"])]) for _, repo, pull in pulls]
    return {"prs": len(pulls), "installations": args.installations, "limit": args.limit,
            "completed_check_runs": sum(1 for r in github.check_runs.values() if r["status"] == "completed"),
            "check_runs": len(github.check_runs), "prs_with_one_review": sum(1 for n in reviews if n == 1),
            "wall_s": round(wall, 1), "model_requests": len(model.requests),
            "max_concurrent_model_calls": overlap([s for v in spans.values() for s in v]),
            "max_concurrent_per_installation": max(overlap(v) for v in spans.values()),
            "worker_rss_idle_mb": round(idle, 1), "worker_rss_end_mb": round(rss, 1),
            "worker_peak_rss_mb": round(hwm, 1), "github_requests": len(github.requests)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prs", type=int, default=200)
    parser.add_argument("--installations", type=int, default=25)
    parser.add_argument("--limit", type=int, default=4, help="REVIEWBOT_INSTALLATION_CONCURRENCY")
    parser.add_argument("--max-jobs", type=int, default=200, help="REVIEWBOT_MAX_JOBS")
    parser.add_argument("--latency", type=float, default=2.0, help="seconds the fake model takes per answer")
    parser.add_argument("--write-intervals", default="1,0.05",
                        help="REVIEWBOT_WRITE_INTERVAL values, one run each (1 s is GitHub's guidance)")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--write-readme", action="store_true")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    args.key = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    results = []
    for interval in (float(v) for v in args.write_intervals.split(",")):
        args.write_interval = interval
        github, model = FakeGitHub(app_id=4242, public_key_pem=public), FakeModel(api_token=TOKEN)
        model.latency = args.latency
        data = Path(tempfile.mkdtemp(prefix="rb-wl-", dir="/tmp"))
        redis = EmbeddedRedis(data)
        with ServedApp(github.app) as served_github, ServedApp(model.app) as served_model:
            github.base_url, model.url = served_github.url, served_model.url
            try:
                results.append({"write_interval": interval, **run(args, github, model, redis.start(), data)})
            finally:
                redis.stop()
    print(json.dumps(results, indent=2))
    (OUT / "worker_load.json").write_text(json.dumps(results, indent=2))
    if args.write_readme:
        write_section("worker", readme_text(results, args))


def readme_text(results: list[dict[str, Any]], args: argparse.Namespace) -> str:
    first = results[0]

    def row(name: str, target: str, cell: Any) -> str:
        return f"| {name} | {target} | " + " | ".join(str(cell(r)) for r in results) + " |"

    def done(r: dict[str, Any]) -> str:
        ok = r["completed_check_runs"] == r["check_runs"] == r["prs_with_one_review"] == r["prs"]
        return (f"{r['prs_with_one_review']} of {r['prs']} PRs with exactly one review, {r['completed_check_runs']}"
                f" of {r['check_runs']} check runs completed" + ("" if ok else " (NOT ALL)"))

    lines = [f"Command: `.venv/bin/python -m bench.worker_load --write-readme`: {first['prs']} pull requests in "
             f"{first['installations']} installations queued at once for one worker process "
             f"(`REVIEWBOT_MAX_JOBS={args.max_jobs}`, `REVIEWBOT_INSTALLATION_CONCURRENCY={first['limit']}`, the "
             f"model's request budget lifted), a model answering each request in {args.latency:g} s.", "",
             "| Measure | Target | " + " | ".join(f"`REVIEWBOT_WRITE_INTERVAL={r['write_interval']:g}`"
                                                  for r in results) + " |",
             "|---|---|" + "---|" * len(results),
             row("Reviews completed", "all, once", done),
             row("Wall time for all of them", "—", lambda r: f"{r['wall_s']} s"),
             row("Worker memory (RSS): idle / peak", "bounded",
                 lambda r: f"{r['worker_rss_idle_mb']} / {r['worker_peak_rss_mb']} MB"),
             row("Most concurrent model calls of one installation", f"≤ {first['limit']}",
                 lambda r: r["max_concurrent_per_installation"]),
             row("Most concurrent model calls overall", "—", lambda r: r["max_concurrent_model_calls"])]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
