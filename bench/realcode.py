"""Real code for the prompt benchmarks: Django releases from PyPI, committed into a local git repository.

The sdists and the repository live in a cache directory outside this repository (`~/.cache/reviewbot-bench-prompt`
or $REVIEWBOT_BENCH_CACHE); nothing from Django is ever committed here. Each release is one commit, tagged v<version>.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

RELEASES = ("5.2", "5.2.1", "5.2.2")
CACHE = Path(os.environ.get("REVIEWBOT_BENCH_CACHE", Path.home() / ".cache" / "reviewbot-bench-prompt"))


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def django_repo() -> Path:
    """The repository with one tagged commit per release (built once, then reused)."""
    repo = CACHE / "django"
    if (repo / ".git").exists() and all(git(repo, "tag", "-l", f"v{r}").strip() for r in RELEASES):
        return repo
    sdists = CACHE / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    for release in RELEASES:
        if not any(p.name.lower() == f"django-{release}.tar.gz" for p in sdists.iterdir()):
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                            "-d", str(sdists), f"django=={release}"], check=True)
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "bench@example.invalid")
    git(repo, "config", "user.name", "bench")
    for release in RELEASES:
        for child in repo.iterdir():
            if child.name != ".git":
                subprocess.run(["rm", "-rf", str(child)], check=True)
        sdist = next(p for p in sdists.iterdir() if p.name.lower() == f"django-{release}.tar.gz")
        with tarfile.open(sdist) as tar:
            for member in tar.getmembers():
                parts = member.name.split("/", 1)
                if len(parts) == 2 and (member.isfile() or member.isdir()):
                    member.name = parts[1]
                    tar.extract(member, repo, filter="data")
        git(repo, "add", "-A", "-f", ".")
        git(repo, "commit", "-q", "-m", f"Django {release}")
        git(repo, "tag", f"v{release}")
    return repo


def tree_files(repo: Path, ref: str) -> dict[str, str]:
    """Every text file of a commit, as the fake GitHub holds a repository."""
    paths = git(repo, "ls-tree", "-r", "--name-only", "-z", ref).split("\0")
    out: dict[str, str] = {}
    batch = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], check=True, capture_output=True,
                           input="".join(f"{ref}:{p}\n" for p in paths if p).encode()).stdout
    at = 0
    for path in (p for p in paths if p):
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        data = batch[header_end + 1:header_end + 1 + size]
        at = header_end + 1 + size + 1
        if b"\0" not in data[:8000]:
            out[path] = data.decode("utf-8", errors="replace")
    return out
