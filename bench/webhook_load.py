"""Webhook intake under load, against `reviewbot serve` and a minimal Starlette endpoint that only checks the
signature (the limit of this machine, HTTP stack and client), both started here on 127.0.0.1.

Run: .venv/bin/python bench/webhook_load.py [--write-readme]

Measures, on the same machine in one run: closed-loop throughput and p50/p99 latency at a fixed concurrency;
an open loop paced at 100 deliveries/s (latency from each delivery's scheduled send time); and a burst of 10,000
deliveries for 500 pull requests, checked afterwards from Redis: every delivery answered, one job per
(PR, head SHA), none lost. Only loopback addresses are used; every loop is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from redis import Redis

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))
from loadgen import Result, closed_loop, open_loop, request_bytes
from readme import write_section
from webhook_payload import pull_request_event

from reviewbot.queue.embedded import EmbeddedRedis
from reviewbot.state.keys import review_job_id
from reviewbot.webhooks.signature import sign, verify

SECRET = "bench-webhook-secret"
HOST = "127.0.0.1"
OUT = Path(__file__).parent / "out"


def minimal_app() -> Any:
    """The limit: Starlette + uvicorn reading the body and checking the signature, nothing else."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def hook(request: Request) -> JSONResponse:
        body = await request.body()
        if not verify(SECRET, body, request.headers.get("x-hub-signature-256")):
            return JSONResponse({"error": "bad signature"}, status_code=401)
        return JSONResponse({"status": "ok"}, status_code=202)

    return Starlette(routes=[Route("/webhooks/github", hook, methods=["POST"])])


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def wait_port(port: int, process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited with {process.returncode}; see {OUT}")
        try:
            socket.create_connection((HOST, port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the server did not start")


def start(args: list[str], env: dict[str, str], log_name: str) -> subprocess.Popen[bytes]:
    with (OUT / log_name).open("wb") as log:
        return subprocess.Popen([sys.executable, *args], env={**os.environ, **env}, stdout=log,
                                stderr=subprocess.STDOUT)


def delivery(event: str, body: bytes, guid: str) -> bytes:
    return request_bytes(f"{HOST}", "/webhooks/github", {
        "X-GitHub-Event": event, "X-GitHub-Delivery": guid, "X-Hub-Signature-256": sign(SECRET, body),
        "Content-Type": "application/json", "User-Agent": "GitHub-Hookshot/bench"}, body)


def fresh_deliveries(count: int, offset: int) -> list[bytes]:
    """`count` opened PRs, each new: every one takes the whole path (dedup miss, latest SHA, a new job)."""
    return [delivery("pull_request", json.dumps(pull_request_event(offset + i, f"{offset + i:040x}")).encode(),
                     str(uuid.uuid4())) for i in range(count)]


def burst_plan(prs: int, per_pr: int, seed: int = 8) -> tuple[list[bytes], list[tuple[str, int, str]]]:
    """Per PR: 10 pushes (new SHAs), 2 resends of a SHA under a new delivery id, the rest GitHub redeliveries
    (same delivery id); shuffled together. Returns the requests and (delivery id, PR, SHA) of each."""
    rng = random.Random(seed)
    plan: list[tuple[str, int, str]] = []
    for number in range(1, prs + 1):
        pushes = [(str(uuid.uuid4()), number, f"{number:08x}{k:032x}") for k in range(10)]
        resent = [(str(uuid.uuid4()), number, rng.choice(pushes)[2]) for _ in range(2)]
        plan += pushes + resent + [rng.choice(pushes) for _ in range(per_pr - 12)]
    rng.shuffle(plan)
    requests = [delivery("pull_request", json.dumps(pull_request_event(n, sha, "synchronize")).encode(), guid)
                for guid, n, sha in plan]
    return requests, plan


def check_burst(result: Result, plan: list[tuple[str, int, str]], redis_url: str) -> dict[str, Any]:
    """Verify from the answers and from Redis: answered, one job per (PR, SHA), no PR lost."""
    statuses = [json.loads(b).get("status") for b in result.bodies]
    accepted: Counter[str] = Counter(g for (g, _, _), s in zip(plan, statuses, strict=True) if s != "duplicate")
    expected = {review_job_id("acme/widgets", n, sha) for _, n, sha in plan}
    with Redis.from_url(redis_url) as r:
        queued = {m.decode() for m in r.zrange("arq:queue", 0, -1)}
        jobs = [json.loads(r.get(f"arq:job:{job_id}") or b"null") for job_id in queued]
    newest: dict[int, str] = {}
    for _, n, sha in plan:  # a PR's pushes are numbered in their SHAs: the highest is its newest head
        newest[n] = max(newest.get(n, ""), sha)
    lost = [n for n, sha in newest.items() if review_job_id("acme/widgets", n, sha) not in queued]
    return {"answered": sum(1 for s in result.statuses if s in (200, 202)), "sent": len(plan),
            "answers": dict(Counter(statuses)), "jobs": len(queued), "expected_jobs": len(expected),
            "jobs_match": queued == expected and all(j and j["f"] == "review_pull_request" for j in jobs),
            "one_acceptance_per_delivery": all(v == 1 for v in accepted.values())
            and len(accepted) == len({g for g, _, _ in plan}), "lost_prs": len(lost)}


async def measure(port: int, args: argparse.Namespace, offset: int) -> dict[str, Any]:
    await closed_loop(HOST, port, fresh_deliveries(300, offset), args.concurrency)  # warm-up, not counted
    closed = await closed_loop(HOST, port, fresh_deliveries(args.deliveries, offset + 1000), args.concurrency)
    paced = await open_loop(HOST, port, fresh_deliveries(int(args.rate * args.seconds), offset + 500_000), args.rate)
    assert set(closed.statuses) | set(paced.statuses) == {202}, Counter(closed.statuses + paced.statuses)
    return {"closed": closed.summary(), "open": paced.summary()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deliveries", type=int, default=5000, help="closed-loop deliveries")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--rate", type=float, default=100.0, help="open-loop deliveries per second")
    parser.add_argument("--seconds", type=float, default=20.0, help="open-loop duration")
    parser.add_argument("--burst", type=int, default=10_000)
    parser.add_argument("--prs", type=int, default=500)
    parser.add_argument("--burst-concurrency", type=int, default=64)
    parser.add_argument("--write-readme", action="store_true")
    parser.add_argument("--minimal", type=int, help=argparse.SUPPRESS)  # internal: serve the minimal endpoint
    parser.add_argument("--pure", action="store_true", help=argparse.SUPPRESS)  # internal: on asyncio + h11
    args = parser.parse_args()
    if args.minimal:
        import uvicorn

        pure = {"loop": "asyncio", "http": "h11"} if args.pure else {}  # uvicorn's pure-Python stack
        uvicorn.run(minimal_app(), host=HOST, port=args.minimal, log_level="warning", access_log=False, **pure)
        return
    OUT.mkdir(exist_ok=True)
    data = Path(tempfile.mkdtemp(prefix="rb-bench-", dir="/tmp"))
    redis = EmbeddedRedis(data)
    redis_url = redis.start()
    report: dict[str, Any] = {"payload_bytes": len(json.dumps(pull_request_event(1, "0" * 40)))}
    try:
        for name, extra in (("minimal", []), ("minimal_pure", ["--pure"])):
            port = free_port()
            minimal = start([__file__, "--minimal", str(port), *extra], {}, "minimal.log")
            wait_port(port, minimal)
            report[name] = asyncio.run(measure(port, args, 0))
            minimal.terminate()
            minimal.wait()
        port = free_port()
        env = {"REDIS_URL": redis_url, "GITHUB_WEBHOOK_SECRET": SECRET, "REVIEWBOT_APP_SLUG": "bench",
               "REVIEWBOT_DATA_DIR": str(data / "data")}
        served = start(["-m", "reviewbot", "serve", "--host", HOST, "--port", str(port)], env, "serve.log")
        wait_port(port, served)
        report["reviewbot"] = asyncio.run(measure(port, args, 2_000_000))
        Redis.from_url(redis_url).flushall()
        requests, plan = burst_plan(args.prs, args.burst // args.prs)
        burst = asyncio.run(closed_loop(HOST, port, requests, args.burst_concurrency, keep_bodies=True))
        report["burst"] = {**burst.summary(), **check_burst(burst, plan, redis_url)}
        served.terminate()
        served.wait()
    finally:
        redis.stop()
    print(json.dumps(report, indent=2))
    (OUT / "webhook_load.json").write_text(json.dumps(report, indent=2))
    if args.write_readme:
        write_section("webhook", readme_table(report, args))


def readme_table(report: dict[str, Any], args: argparse.Namespace) -> str:
    bot, fast, pure, burst = report["reviewbot"], report["minimal"], report["minimal_pure"], report["burst"]

    def rps(side: dict[str, Any]) -> str:
        share = bot["closed"]["throughput_rps"] / side["closed"]["throughput_rps"]
        return f"{side['closed']['throughput_rps']:,.0f} (reviewbot: {share:.0%})"

    def lat(side: dict[str, Any], loop: str) -> str:
        return f"{side[loop]['p50_ms']} / {side[loop]['p99_ms']} ms"

    lines = [f"Command: `.venv/bin/python bench/webhook_load.py --write-readme`: {args.deliveries:,} closed-loop "
             f"deliveries at concurrency {args.concurrency}, then {args.rate:.0f} deliveries/s for "
             f"{args.seconds:.0f} s; "
             f"signed `pull_request` payloads of {report['payload_bytes']:,} bytes, each a new PR (the whole path: "
             "signature, JSON, dedup, enqueue); client, server and Redis share the 2 cores.", "",
             "| Measure | Target | reviewbot serve | Minimal endpoint, same stack | Minimal endpoint, pure Python |",
             "|---|---|---|---|---|",
             f"| Closed loop: deliveries/s | ≥ 50% of the minimal | {bot['closed']['throughput_rps']:,.0f} "
             f"| {rps(fast)} | {rps(pure)} |",
             f"| Closed loop: p50 / p99 | — | {lat(bot, 'closed')} | {lat(fast, 'closed')} | {lat(pure, 'closed')} |",
             f"| Open loop at {args.rate:.0f}/s: p50 / p99 from the scheduled time | p99 ≤ 25 ms "
             f"| {lat(bot, 'open')} | {lat(fast, 'open')} | {lat(pure, 'open')} |", "",
             "Same stack: uvicorn with uvloop and httptools, as `reviewbot serve` runs; pure Python: uvicorn's "
             "asyncio loop and h11 parser.", "",
             f"Burst of {burst['sent']:,} deliveries for {args.prs} pull requests at concurrency "
             f"{args.burst_concurrency} (per PR: 10 pushes, 2 resends of a SHA under a new delivery id, the rest "
             f"GitHub redeliveries of an earlier id; shuffled): {burst['answered']:,} of {burst['sent']:,} answered "
             f"in {burst['requests'] / burst['throughput_rps']:.1f} s (p50 {burst['p50_ms']} ms, p99 "
             f"{burst['p99_ms']} ms); answers: " + ", ".join(f"{k} {v:,}" for k, v in sorted(burst["answers"].items()))
             + f". Read back from Redis: {burst['jobs']:,} queued jobs for {burst['expected_jobs']:,} distinct "
             f"(PR, SHA) pairs, exactly those: {'yes' if burst['jobs_match'] else 'NO'}; one acceptance per delivery "
             f"id: {'yes' if burst['one_acceptance_per_delivery'] else 'NO'}; pull requests whose newest SHA has "
             f"no job: {burst['lost_prs']}."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
