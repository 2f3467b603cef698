"""A review, a 10-line push and the re-review, replayed against a prefix-cache model: the re-review's cached share.

    .venv/bin/python -m bench.cache_replay [--write-readme]

The pull request is real code: Django 5.2.1 → 5.2.2 (48 files, bench/realcode.py). The push adds a 10-line
function to one of its files. Both paths run as a user runs them, against the fake model on 127.0.0.1, which
answers every review with two major findings (so each review also sends a verification request) and confirms them:
- local: `reviewbot review` on a clone whose branch holds the release as one commit, then the push as a second;
- webhook: `reviewbot worker` reviewing the pull request on the fake GitHub, opened then synchronized.
The cache model is the provider's as far as it is documented: an exact token prefix, in whole blocks, per
`x-session-affinity`; chars/4 tokens (as the fake model counts); 64- and 128-token blocks. The share counts every
request of the re-review (review and verification).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from arq import create_pool
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bench.readme import write_section
from bench.realcode import django_repo, git, tree_files
from reviewbot.eval.replay import common_prefix
from reviewbot.queue import functions
from reviewbot.queue.embedded import EmbeddedRedis
from reviewbot.queue.enqueue import enqueue_review
from reviewbot.queue.request import ReviewRequest
from reviewbot.queue.worker import redis_settings
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json
from tests.fakes.server import ServedApp

OUT = Path(__file__).parent / "out"
TOKEN = "bench-model-token"
REPO = "django/django"
PUSHED = "django/contrib/auth/middleware.py"  # early among the code files: near the worst case for a push
PUSH = ('\n\ndef log_retry(logger, message, attempts=3):\n    """Log a message, retrying on a broken handler."""\n'
        "    for attempt in range(attempts):\n        try:\n            logger.warning(message)\n"
        "            return True\n        except OSError:\n            continue\n    return False\n")
BLOCKS = (64, 128)


def findings() -> str:
    def one(line: int, title: str) -> dict[str, Any]:
        return {"path": PUSHED, "line": line, "start_line": None, "side": "RIGHT", "severity": "major",
                "category": "bug", "title": title, "body": "The handler can fail here.", "suggestion": None,
                "confidence": 0.9}
    return findings_json([one(230, "Response logged twice"), one(240, "Level ignored")], "Two problems.")


def serialised(body: dict[str, Any]) -> str:
    """What the prefix cache sees of a request, as the fake model serialises it."""
    return json.dumps({"tools": body.get("tools"), "messages": body["messages"]}, ensure_ascii=False)


def shares(requests: list[dict[str, Any]], start: int) -> dict[str, Any]:
    """Cached share of requests[start:] (the re-review) given all earlier ones, for each block size."""
    texts = [serialised(r) for r in requests]
    prompt = sum(math.ceil(len(t) / 4) for t in texts[start:])
    out: dict[str, Any] = {"requests": len(texts) - start, "prompt_tokens": prompt}
    for block in BLOCKS:
        cached = 0
        for i in range(start, len(texts)):
            shared = max((common_prefix(texts[i], texts[j]) for j in range(i)), default=0)
            cached += shared // 4 // block * block
        out[f"cached_{block}"] = cached
        out[f"share_{block}"] = round(cached / prompt, 4) if prompt else 0.0
    review = texts[start]
    first = texts[0]
    out["review_share_64"] = round(common_prefix(review, first) // 4 // 64 * 64 / math.ceil(len(review) / 4), 4)
    return out


def local(model: FakeModel, repo: Path, work: Path) -> dict[str, Any]:
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(repo), str(clone)], check=True)
    git(clone, "config", "user.email", "dev@example.invalid")
    git(clone, "config", "user.name", "dev")
    git(clone, "checkout", "-q", "-B", "main", "v5.2.1")
    git(clone, "checkout", "-q", "-b", "release-fixes")
    git(clone, "checkout", "-q", "v5.2.2", "--", ".")
    git(clone, "commit", "-q", "-m", "Fix the regressions reported against 5.2.1")
    env = {**os.environ, "REVIEWBOT_MODEL_BASE_URL": f"{model.url}/v1", "CLOUDFLARE_API_TOKEN": TOKEN,
           "REVIEWBOT_DATA_DIR": str(work / "data")}
    command = [sys.executable, "-m", "reviewbot", "review", "--repo", str(clone), "--base", "main", "--format", "json"]
    subprocess.run(command, env=env, check=True, capture_output=True)
    start = len(model.requests)
    path = clone / PUSHED
    path.write_text(path.read_text() + PUSH)
    git(clone, "commit", "-q", "-am", "Retry logging on a broken handler")
    subprocess.run(command, env=env, check=True, capture_output=True)
    return shares([r.json for r in model.requests], start)


def webhook(model: FakeModel, github: FakeGitHub, key: str, base: dict[str, str], head: dict[str, str],
            work: Path) -> dict[str, Any]:
    github.add_installation(7000, [REPO])
    pull = github.add_pull(REPO, 1, base_files=base, head_files=head,
                           title="Fix the regressions reported against 5.2.1", body="Backports of the fixes for 5.2.2.")
    redis = EmbeddedRedis(work)
    redis_url = redis.start()
    env = {**os.environ, "GITHUB_APP_ID": "4242", "GITHUB_PRIVATE_KEY": key, "GITHUB_API_URL": github.base_url,
           "REDIS_URL": redis_url, "REVIEWBOT_MODEL_BASE_URL": f"{model.url}/client/v4/accounts/a/ai/v1",
           "CLOUDFLARE_API_TOKEN": TOKEN, "GITHUB_WEBHOOK_SECRET": "bench-secret", "REVIEWBOT_APP_SLUG": "bench",
           "REVIEWBOT_MODEL_RPM": "100000", "REVIEWBOT_WRITE_INTERVAL": "0.05", "REVIEWBOT_JOB_TIMEOUT": "600",
           "REVIEWBOT_DATA_DIR": str(work / "worker")}
    log = (OUT / "cache_replay_worker.log").open("wb")
    worker = subprocess.Popen([sys.executable, "-m", "reviewbot", "worker"], env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        asyncio.run(enqueue(redis_url, ReviewRequest(7000, REPO, 1, pull["head"]["sha"], "opened", run="one")))
        wait_checks(github, 1)
        start = len(model.requests)
        pushed = github.update_head(REPO, 1, {**head, PUSHED: head[PUSHED] + PUSH})
        asyncio.run(enqueue(redis_url, ReviewRequest(7000, REPO, 1, pushed["head"]["sha"], "synchronize",
                                                     before=pull["head"]["sha"], run="two")))
        wait_checks(github, 2)
    finally:
        worker.terminate()
        worker.wait(timeout=120)
        log.close()
        redis.stop()
    return shares([r.json for r in model.requests], start)


async def enqueue(redis_url: str, request: ReviewRequest) -> None:
    pool = await create_pool(redis_settings(redis_url), job_serializer=functions.serialize,
                             job_deserializer=functions.deserialize)
    try:
        await enqueue_review(pool, request)
    finally:
        await pool.aclose()


def wait_checks(github: FakeGitHub, count: int, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sum(1 for r in github.check_runs.values() if r["status"] == "completed") >= count:
            return
        time.sleep(0.2)
    raise SystemExit(f"the worker did not finish review {count}; see {OUT / 'cache_replay_worker.log'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write-readme", action="store_true")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    repo = django_repo()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="rb-cache-") as tmp:
        model = FakeModel(api_token=TOKEN)
        with ServedApp(model.app) as served:
            model.url = served.url
            model.default = answering(findings())
            results["local"] = local(model, repo, Path(tmp) / "local")
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
        public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
        github, model = FakeGitHub(app_id=4242, public_key_pem=public), FakeModel(api_token=TOKEN)
        with ServedApp(github.app) as served_github, ServedApp(model.app) as served_model:
            github.base_url, model.url = served_github.url, served_model.url
            model.default = answering(findings())
            work = Path(tmp) / "webhook"
            work.mkdir()
            results["webhook"] = webhook(model, github, pem, tree_files(repo, "v5.2.1"), tree_files(repo, "v5.2.2"),
                                         work)
    print(json.dumps(results, indent=2))
    (OUT / "cache_replay.json").write_text(json.dumps(results, indent=2))
    if args.write_readme:
        write_section("cache", readme_text(results))


def readme_text(r: dict[str, Any]) -> str:
    def row(name: str, path: dict[str, Any]) -> str:
        ok = "meets" if path["share_64"] >= 0.9 else "misses"
        return (f"| {name} | ≥ 90% | {path['share_64']:.1%} ({ok}) | {path['share_128']:.1%} | "
                f"{path['review_share_64']:.1%} | {path['requests']} | {path['prompt_tokens']:,} |")
    return "\n".join([
        "Command: `.venv/bin/python -m bench.cache_replay --write-readme`. Pull request: Django 5.2.1 → 5.2.2 from "
        "PyPI (48 files), then a push adding a 10-line function to `django/contrib/auth/middleware.py` (an early "
        "one among the code files, which the first review's diff order puts after prose and tests); the fake model "
        "answers "
        "each review with two major findings, so each review sends a verification request too.", "",
        "| Re-review after the push | Target | Cached share, 64-token blocks | 128-token blocks | "
        "Review request alone (64) | Requests | Prompt tokens |",
        "|---|---|---|---|---|---|---|",
        row("Local: `reviewbot review`", r["local"]),
        row("Webhook: the worker's job", r["webhook"]),
    ]) + "\n"


if __name__ == "__main__":
    main()
