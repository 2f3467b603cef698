"""Whole-command benchmarks on real code: `reviewbot review --dry-run` timed from process start to exit.

Run: .venv/bin/python -m bench.bench_real [--write-readme] [--runs 3] [--only NAME]

Real source comes from PyPI: four Django sdists (`pip download --no-deps --no-binary :all:`), each release
committed into a local git repository under ~/.cache/reviewbot-bench (never inside this repository). The
pull requests are release to release (5.1.4 → 5.2 huge, 5.2 → 5.2.1 and 5.2.1 → 5.2.2 typical), a one-file
change on top of 5.2.2, and the synthetic 2,500-file change (bench/gen_repo.py). Every run is a subprocess;
wall time and peak memory (RUSAGE_CHILDREN of a wrapper process) are measured as a user waits. "Cold" starts
from an empty data directory (no repository cache, no index); a review indexes at most 2,000 new files, nearest to
its change first, so the next reviews ("fill-in", timed too) index the rest; "warm" repeats the same review once
the index is whole. A bare `git diff` of the same range is timed for reference.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from bench.gen_repo import generate
from bench.readme import write_section

CACHE = Path(os.environ.get("REVIEWBOT_BENCH_CACHE", Path.home() / ".cache" / "reviewbot-bench"))
RELEASES = ("5.1.4", "5.2", "5.2.1", "5.2.2")
PYTHON = sys.executable
_MEASURE = ("import os, resource, subprocess, sys, time, json; "
            "out = open(os.environ.get('BENCH_OUT', os.devnull), 'wb'); "
            "t = time.perf_counter(); r = subprocess.run(sys.argv[1:], stdout=out, stderr=subprocess.PIPE); "
            "w = time.perf_counter() - t; u = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(json.dumps({'rc': r.returncode, 'wall': w, 'rss_mb': u.ru_maxrss / 1024, "
            "'cpu': u.ru_utime + u.ru_stime, "
            "'err': r.stderr.decode()[-400:]}))")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _commit_tree(repo: Path, message: str, tag: str) -> None:
    git(repo, "add", "-A", ".")
    git(repo, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q",
        "--allow-empty", "-m", message)
    git(repo, "tag", "-f", tag)


def _clear(repo: Path) -> None:
    for child in repo.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()


def django_repo() -> Path:
    """Each Django release committed in turn (tags v5.1.4 …), plus a one-file change on top (tag one-file)."""
    repo = CACHE / "django"
    if (repo / ".git").exists() and "one-file" in git(repo, "tag").split():
        return repo
    sdists = CACHE / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for version in RELEASES:
        found = [p for p in sdists.glob("*.tar.gz") if p.name.lower() == f"django-{version}.tar.gz"]
        if not found:
            subprocess.run([PYTHON, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                            f"django=={version}", "-d", str(sdists)], check=True)
            found = [p for p in sdists.glob("*.tar.gz") if p.name.lower() == f"django-{version}.tar.gz"]
        _clear(repo)
        with tarfile.open(found[0]) as tar:
            for member in tar.getmembers():
                parts = member.name.split("/", 1)
                if len(parts) < 2 or not (member.isfile() or member.isdir()):
                    continue
                member.name = parts[1]
                tar.extract(member, repo, filter="data")
        _commit_tree(repo, f"Django {version}", f"v{version}")
    target = repo / "django" / "utils" / "text.py"
    text = target.read_text()
    target.write_text(text.replace("def capfirst(x):", "def capfirst(x, locale=None):", 1))
    _commit_tree(repo, "capfirst takes a locale", "one-file")
    return repo


def synthetic_repo() -> Path:
    """bench/gen_repo.py's repository (seeded) and the 2,500-file change of bench_context.py."""
    from bench.bench_context import big_pr

    repo = CACHE / "synthetic"
    if (repo / ".git").exists() and "big" in git(repo, "tag").split():
        if "one-file" not in git(repo, "tag").split():
            _synthetic_one_file(repo)
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    files = generate()
    for state, tag in ((files, "base"), (big_pr(files), "big")):
        _clear(repo)
        for path, text in state.items():
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text)
        _commit_tree(repo, tag, tag)
    _synthetic_one_file(repo)
    return repo


def _synthetic_one_file(repo: Path) -> None:
    """A one-file signature change on the synthetic base (branch one-file), for the size comparison."""
    git(repo, "checkout", "-q", "-B", "one-file-work", "base")
    target = repo / "services" / "invoice_0" / "invoice_load_0.py"
    target.write_text(target.read_text().replace("def archive_invoice_0_0_0(records, limit=",
                                                  "def archive_invoice_0_0_0(records, currency, limit=", 1))
    _commit_tree(repo, "one-file", "one-file")
    git(repo, "checkout", "-q", "main")


def measure(cmd: list[str], env: dict[str, str]) -> dict[str, float]:
    out = subprocess.run([PYTHON, "-c", _MEASURE, *cmd], check=True, capture_output=True, text=True, env=env)
    result: dict[str, float] = json.loads(out.stdout)
    if result["rc"] != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {result['err']}")
    return result


def bench_case(repo: Path, base: str, head: str, runs: int, data: Path) -> dict[str, float]:
    env = {**os.environ, "REVIEWBOT_DATA_DIR": str(data)}
    cmd = [PYTHON, "-m", "reviewbot", "review", "--repo", str(repo), "--base", base, "--head", head,
           "--dry-run", "--format", "json"]
    shutil.rmtree(data, ignore_errors=True)
    answer = data.with_suffix(".json")  # the plan a review printed: its notes say whether the index is whole
    cold = measure(cmd, {**env, "BENCH_OUT": str(answer)})
    fills = []  # the next reviews, until the index covers the whole tree
    while len(fills) < 10 and _unindexed(answer):
        fills.append(measure(cmd, {**env, "BENCH_OUT": str(answer)}))
    warm = [measure(cmd, env) for _ in range(runs)]
    diff = [measure(["git", "-C", str(repo), "diff", "--no-color", "-M", "--full-index", base, head], env)
            for _ in range(runs)]
    plan = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout)
    files = len(git(repo, "diff", "--name-only", base, head).split())
    best = min(warm, key=lambda r: r["wall"])
    return {"files": files, "cold": cold["wall"], "cold_mb": cold["rss_mb"], "warm": best["wall"],
            "fills": len(fills), "fill": max((r["wall"] for r in fills), default=0.0),
            "fill_cpu": max((r["cpu"] for r in fills), default=0.0),
            "cold_cpu": cold["cpu"], "warm_cpu": min(r["cpu"] for r in warm),
            "warm_mb": max(r["rss_mb"] for r in warm), "git_diff": min(r["wall"] for r in diff),
            "tokens": plan["prompt_tokens_estimate"], "cost": plan["estimated_cost_usd"] or 0.0,
            "context_files": len(plan["coverage"].get("context", []))}


def _unindexed(answer: Path) -> bool:
    """Whether the review that printed `answer` left files of the tree unindexed (it says so in its notes)."""
    plan = json.loads(answer.read_text())
    return any("index does not cover" in note for note in plan["coverage"].get("notes", []))


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    return f"{os.cpu_count()} cores (`nproc`), {cpu}, Python {platform.python_version()}"


CASES = {  # name -> (repository, base, head, target in seconds beyond a bare git diff or absolute)
    "django 5.1.4 → 5.2 (huge)": ("django", "v5.1.4", "v5.2"),
    "django 5.2 → 5.2.1 (typical)": ("django", "v5.2", "v5.2.1"),
    "django 5.2.1 → 5.2.2 (typical)": ("django", "v5.2.1", "v5.2.2"),
    "django one-file change": ("django", "v5.2.2", "one-file"),
    "synthetic 2,500 files": ("synthetic", "base", "big"),
    "synthetic one-file change": ("synthetic", "base", "one-file"),
}


def projection(small: dict[str, float], large: dict[str, float], sizes: tuple[int, int], target: int) -> str:
    """A straight line through two repository sizes (the one-file change: what grows with the repository, not
    with the change). CPU seconds, the steadier figure on shared cores; a negative slope counts as flat."""
    def at(key: str) -> float:
        slope = max(0.0, (large[key] - small[key]) / (sizes[1] - sizes[0]))
        return large[key] + slope * (target - sizes[1])
    return (f"Projected for a {target:,}-file repository (a straight line through the one-file change at "
            f"{sizes[0]:,} and {sizes[1]:,} files, CPU seconds): warm {at('warm_cpu'):.2f} s, first review "
            f"(cold) {at('cold_cpu'):.1f} s, warm peak {at('warm_mb'):.0f} MB. A first review's peak is set by "
            f"the indexing batch (2,000 files at a time), not by the repository's size.")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write-readme", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    repos = {"django": django_repo(), "synthetic": synthetic_repo()}
    results: dict[str, dict[str, float]] = {}
    rows = ["| Pull request | Files | Cold s (CPU s) | Fill-in reviews, slowest s (CPU s) | Warm s (CPU s) "
            "| Cold / warm "
            "| bare `git diff` s | Peak MB (cold / warm) | Prompt tokens | Context files | Est. cost $ |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, (which, base, head) in CASES.items():
        if args.only and args.only not in name:
            continue
        r = bench_case(repos[which], base, head, args.runs, CACHE / "data" / which)
        results[name] = r
        row = (f"| {name} | {r['files']:,} | {r['cold']:.2f} ({r['cold_cpu']:.2f}) | {r['fills']:.0f}: "
               f"{r['fill']:.2f} ({r['fill_cpu']:.2f}) | {r['warm']:.2f} ({r['warm_cpu']:.2f}) | "
               f"{r['cold'] / r['warm']:.1f}× ({r['cold_cpu'] / r['warm_cpu']:.1f}×) | {r['git_diff']:.2f} | "
               f"{r['cold_mb']:.0f} / {r['warm_mb']:.0f} | {r['tokens']:,} | {r['context_files']} | "
               f"{r['cost']:.4f} |")
        print(row, flush=True)
        rows.append(row)
    load = os.getloadavg()[0]
    text = (f"Machine: {machine()}; load average {load:.1f} at the end (the cores are shared: CPU seconds, "
            f"user + system of the command and its git children, are the steadier figure). "
            f"Command: `.venv/bin/python -m bench.bench_real --write-readme` "
            f"(best of {args.runs} warm runs; cold = empty data directory).\n\n" + "\n".join(rows))
    if "synthetic one-file change" in results and "django one-file change" in results:
        sizes = tuple(len(git(repos[w], "ls-tree", "-r", "--name-only", "base" if w == "synthetic" else "v5.2.2")
                          .split()) for w in ("synthetic", "django"))
        text += "\n\n" + projection(results["synthetic one-file change"], results["django one-file change"],
                                    (sizes[0], sizes[1]), 100_000)
    print(text)
    if args.write_readme and not args.only:
        write_section("real", text)


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
