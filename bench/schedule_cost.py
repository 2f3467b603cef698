"""What the audit schedule's scans cost in GitHub requests: an installation of N repositories, none of them
scheduled, scanned once (every configuration read), then for one idle hour (six scans, ten minutes apart), every
request counted at the fake GitHub. `.venv/bin/python -m bench.schedule_cost [--repos 1000] [--write-readme]`."""

from __future__ import annotations

import argparse
import asyncio
import collections
import shutil
import tempfile
import time
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bench.readme import write_section
from reviewbot.jobs.audit.schedule import EVERY_MINUTES
from reviewbot.queue.embedded import EmbeddedRedis
from tests.fakes.github import FakeGitHub
from tests.fakes.server import ServedApp
from tests.integration.test_audit_schedule_cost import START, installed, scan


def _kind(path: str) -> str:
    return "configuration reads" if "/contents/" in path else "repository lists" if path.startswith(
        "/installation/repositories") else "installations" if path.startswith("/app/installations") and \
        path.count("/") == 2 else "tokens" if path.endswith("/access_tokens") else path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repos", type=int, default=1000)
    parser.add_argument("--write-readme", action="store_true")
    args = parser.parse_args()
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    github = FakeGitHub(app_id=4242, public_key_pem=public)
    data = Path(tempfile.mkdtemp(prefix="rb-sc-", dir="/tmp"))
    redis = EmbeddedRedis(data / "redis")
    try:
        with ServedApp(github.app) as served:
            github.base_url = served.url
            repos = installed(github, args.repos)
            env = {"GITHUB_APP_ID": "4242", "GITHUB_PRIVATE_KEY": private, "GITHUB_API_URL": github.base_url,
                   "REDIS_URL": redis.start(), "GITHUB_WEBHOOK_SECRET": "bench-secret",
                   "REVIEWBOT_APP_SLUG": "bench", "REVIEWBOT_DATA_DIR": str(data),
                   "REVIEWBOT_MODEL_BASE_URL": "http://127.0.0.1:9/v1"}  # never asked: no audit starts
            began = time.monotonic()
            asyncio.run(scan(env, env["REDIS_URL"], START))
            first, first_s = len(github.requests), time.monotonic() - began
            began = time.monotonic()
            asyncio.run(scan(env, env["REDIS_URL"], *(START + k * EVERY_MINUTES * 60 for k in range(1, 7))))
            hour, hour_s = github.requests[first:], time.monotonic() - began
    finally:
        redis.stop()
        shutil.rmtree(data, ignore_errors=True)
    count = len(repos) + 1  # and the organisation's `.github`
    kinds = collections.Counter(_kind(c.path) for c in hour)
    parts = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    text = (f"An installation of {count:,} repositories (the organisation's `.github` among them), none scheduled. "
            f"First scan: {first:,} requests ({first_s:.1f} s). Then one idle hour, six scans: **{len(hour):,} "
            f"requests, {len(hour) / count:.3f} per repository** ({parts}; "
            f"{hour_s:.1f} s). Command: `.venv/bin/python -m bench.schedule_cost --repos {args.repos} "
            "--write-readme`.")
    print(text)
    if args.write_readme:
        write_section("schedule", text)


if __name__ == "__main__":
    main()
