"""Caller recall on real history: commits of httpx, pydantic and flask that change a signature with callers.

Pick the commits (once; the list is kept in bench/recall_commits.json), the newest COUNT after the newest SKIP:
    .venv/bin/python -m bench.recall_history pick NAME GIT_DIR [COUNT [SKIP]]
Measure (every listed commit of every project whose git directory is given):
    .venv/bin/python -m bench.recall_history run NAME=GIT_DIR ...

A git directory may be bare (a mirror): it is cloned once, shared and without a checkout, under
~/.cache/reviewbot-bench-history (or $REVIEWBOT_BENCH_CACHE), because `reviewbot review` wants a work tree's root.
The truth is recall_real's: Python's `ast` at base and head, callers by `git grep`, independent of the engine.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from bench.recall_real import Recall, callers, changed_signatures, check

COMMITS = Path(__file__).with_name("recall_commits.json")
CACHE = Path(os.environ.get("REVIEWBOT_BENCH_CACHE", Path.home() / ".cache" / "reviewbot-bench-history"))
MAX_DIFF_FILES = 40  # a pull request's size, not a release's


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def work_repo(name: str, git_dir: Path) -> Path:
    """A clone with a work tree root (no files checked out) of a possibly bare git directory."""
    if git(git_dir, "rev-parse", "--is-bare-repository").strip() != "true":
        return git_dir
    clone = CACHE / name
    if not (clone / ".git").exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(git_dir), str(clone)], check=True)
    return clone


def qualifies(repo: Path, commit: str) -> bool:
    """A one-parent commit of at most MAX_DIFF_FILES files changing a signature that another file calls."""
    parents = git(repo, "rev-list", "--parents", "-n", "1", commit).split()[1:]
    if len(parents) != 1:
        return False
    changed = set(git(repo, "diff", "--name-only", parents[0], commit).split())
    if len(changed) > MAX_DIFF_FILES:
        return False
    return any(c not in changed for path, name in changed_signatures(str(repo), parents[0], commit)
               for c in callers(str(repo), parents[0], path, name) if c.endswith(".py"))


def pick(repo: Path, count: int, skip: int = 0) -> list[str]:
    """The newest `count` qualifying commits of the default branch after the newest `skip`, newest first."""
    out: list[str] = []
    for commit in git(repo, "log", "--no-merges", "--format=%H", "HEAD", "--", "*.py").split():
        if qualifies(repo, commit):
            if skip:
                skip -= 1
                continue
            out.append(commit)
            print(f"{commit[:10]} ({len(out)}/{count})", file=sys.stderr)
            if len(out) >= count:
                break
    return out


def run(projects: dict[str, Path]) -> dict[str, dict[str, float]]:
    listed: dict[str, list[str]] = json.loads(COMMITS.read_text())
    table: dict[str, dict[str, float]] = {}
    for name, git_dir in projects.items():
        repo = work_repo(name.split("-", 1)[0], git_dir)  # `httpx-older`: a second sample of one project
        results: list[Recall] = [check(str(repo), f"{c}^", c) for c in listed[name]]
        total = sum(r.total for r in results)
        found = sum(r.total - len(r.missing) for r in results)
        table[name] = {"commits": len(results), "callers": total, "shown": sum(r.shown for r in results),
                       "found": found, "recall": round(found / total, 3) if total else 1.0,
                       "median_tokens": statistics.median(r.tokens for r in results)}
        for r in results:
            print("\n".join(r.missing), file=sys.stderr) if r.missing else None
    return table


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["pick"]:
        name, git_dir = args[1], Path(args[2])
        count, skip = int(args[3]) if len(args) > 3 else 25, int(args[4]) if len(args) > 4 else 0
        commits = pick(work_repo(name.split("-", 1)[0], git_dir), count, skip)
        data = json.loads(COMMITS.read_text()) if COMMITS.exists() else {}
        data[name] = commits
        COMMITS.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        return
    projects = {a.split("=", 1)[0]: Path(a.split("=", 1)[1]) for a in args[1:]}
    print(json.dumps(run(projects), indent=1))


if __name__ == "__main__":
    main()
