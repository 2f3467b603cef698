"""How long the large-PR fallback takes: a 3,000-file pull request rebuilt from the files endpoint (and the
blobs of files whose patch GitHub omits), against the fake GitHub on 127.0.0.1.

    .venv/bin/python -m bench.bigdiff_fallback [--files 3000] [--big 20]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from reviewbot.app.auth import InstallationTokens
from reviewbot.app.bigdiff import load_diff
from reviewbot.app.port import GitHubPort
from reviewbot.review.diff.parse import parse_diff
from tests.fakes.github import FakeGitHub
from tests.fakes.server import ServedApp

REPO = "acme/widgets"


async def run(files: int, big: int) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    fake = FakeGitHub(app_id=1, public_key_pem=public)
    with ServedApp(fake.app) as served:
        fake.base_url = served.url
        fake.add_installation(1, [REPO])
        base = {f"src/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(files - big)}
        head = {p: t.replace("return", "return -") for p, t in base.items()}
        for i in range(big):  # patches GitHub omits (over 3,000 lines): rebuilt from both blobs
            base[f"big/b{i}.py"] = "".join(f"line_{i}_{n} = {n}\n" for n in range(2500))
            head[f"big/b{i}.py"] = "".join(f"line_{i}_{n} = {n if n % 2 else -n}\n" for n in range(2500))
        pr = fake.add_pull(REPO, 1, base_files=base, head_files=head)
        port = GitHubPort(await InstallationTokens("1", private.decode(), fake.base_url).get(1), fake.base_url)
        started = time.perf_counter()
        text, unseen = await load_diff(port, REPO, 1, pr["base"]["sha"], pr["head"]["sha"])
        loaded = time.perf_counter() - started
        started = time.perf_counter()
        parsed = parse_diff(text)
        parsing = time.perf_counter() - started
        print(f"files={files} omitted_patches={big} requests={len(fake.requests)} load_diff={loaded:.2f}s "
              f"parse_diff={parsing:.2f}s diff={len(text) / 1e6:.1f}MB parsed_files={len(parsed.files)} "
              f"unseen={len(unseen)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--big", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(run(args.files, args.big))


if __name__ == "__main__":
    main()
