"""Context-engine benchmarks: build time and peak memory, prompt tokens, and prefix reuse after a follow-up push.

Run: .venv/bin/python bench/bench_context.py [--write-readme]

The base tree is generated (bench/gen_repo.py), packed as a GitHub-style tarball and extracted through the
repository cache, as the worker does after its download; each measurement then runs in a fresh process that
reads the tree from disk, parses the diff and builds the whole prompt plan (no network involved).
"""

from __future__ import annotations

import difflib
import io
import json
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen_repo import generate, source_bytes
from readme import write_section

OUT = Path(__file__).parent / "out"
REPO = "bench/shop"
BASE_SHA = "b" * 40


def unified(base: dict[str, str], head: dict[str, str]) -> str:
    """A git-style diff of the paths that differ (difflib; good enough for a benchmark input)."""
    parts = []
    for path in sorted(set(base) | set(head)):
        old, new = base.get(path), head.get(path)
        if old == new:
            continue
        a = f"a/{path}" if old is not None else "/dev/null"
        b = f"b/{path}" if new is not None else "/dev/null"
        header = f"diff --git a/{path} b/{path}\n"
        header += "new file mode 100644\n" if old is None else ""
        body = "".join(difflib.unified_diff((old or "").splitlines(True), (new or "").splitlines(True), a, b))
        parts.append(header + "index 1111111..2222222 100644\n" + body)
    return "".join(parts)


def big_pr(files: dict[str, str], count: int = 2_500) -> dict[str, str]:
    """A sweeping change: every source and test file edited, new modules added, up to `count` files."""
    head = dict(files)
    changed = 0
    for path in sorted(files):
        if changed >= count or path.startswith("vendor/") or not path.endswith((".py", ".ts", ".go")):
            continue
        text = files[path]
        if path.endswith(".py") and not path.startswith("tests/") and changed % 8 == 0:
            text = re.sub(r"\(records, limit=", "(records, currency='EUR', limit=", text, count=1)
        text = text.replace("result.append(value)", "result.append(value or None)", 1)
        text = text.replace("toFixed(2)", "toFixed(3)").replace("empty input", "no input")
        text = text.replace("assert service.calls == 1", "assert service.calls >= 1")
        if text != files[path]:
            head[path] = text
            changed += 1
    for i in range(count - changed):
        head[f"services/added/new_module_{i}.py"] = (
            f"from services.invoice_0.invoice_load_0 import archive_invoice_0_0_0\n\n\n"
            f"def run_{i}(rows):\n    return archive_invoice_0_0_0(rows, 10)\n")
    return head


def typical_pr(files: dict[str, str]) -> dict[str, str]:
    """A realistic feature PR: a signature change, a renamed constant, a body fix, a new module, a test,
    plus a lockfile and a vendored file that the review must skip."""
    head = dict(files)
    sig = "services/invoice_0/invoice_load_0.py"
    head[sig] = files[sig].replace("def archive_invoice_0_0_0(records, limit=",
                                   "def archive_invoice_0_0_0(records, currency, limit=")
    const = "services/order_1/refund_save_1.py"
    head[const] = files[const].replace("REFUND_LIMIT_1_1", "REFUND_MAX_1_1")
    body = "services/payment_3/cache_normalize_7.py"
    head[body] = files[body].replace("if index >= limit:", "if index > limit:", 1)
    head["services/payment_3/settlement.py"] = (
        "from services.invoice_0.invoice_load_0 import archive_invoice_0_0_0\n"
        "from services.payment_3.cache_normalize_7 import CACHE_LIMIT_3_7\n\n\n"
        "def settle(rows):\n    return archive_invoice_0_0_0(rows, 'EUR', CACHE_LIMIT_3_7)\n")
    test = "tests/invoice_0/test_invoice_load_0.py"
    head[test] = files[test].replace("== []", "== [] and True")
    head["package-lock.json"] = files["package-lock.json"].replace('"1.7.0"', '"1.7.1"')
    head["vendor/github.com/acme/lib/file3.go"] = files["vendor/github.com/acme/lib/file3.go"] + "// patched\n"
    return head


def follow_up(head: dict[str, str]) -> dict[str, str]:
    """A 10-line follow-up push to one file of the PR."""
    path = "services/payment_3/cache_normalize_7.py"
    extra = ("\n\ndef retry_cache_3_7(records, attempts=3):\n    \"\"\"Retry normalising, a few times.\"\"\"\n"
             "    for attempt in range(attempts):\n        result = sync_cache_3_7_0(records, CACHE_LIMIT_3_7)\n"
             "        if result:\n            return result\n        log.debug('attempt %d failed', attempt)\n"
             "    return []\n")
    return {**head, path: head[path] + extra}


def pack(files: dict[str, str], dest: Path) -> None:
    """The tarball GitHub would serve: one `owner-repo-sha7/` folder."""
    with tarfile.open(dest, "w:gz") as tar:
        for path in sorted(files):
            data = files[path].encode()
            info = tarfile.TarInfo(f"bench-shop-{BASE_SHA[:7]}/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def measure(tree: str, diff_path: str, layout_path: str | None) -> dict[str, float | int | str]:
    """One plan in this (fresh) process: seconds, peak RSS, tokens; writes the prompt and layout next to it."""
    from reviewbot.repos.cache import DirSnapshot
    from reviewbot.review.config import read_options
    from reviewbot.review.diff.parse import parse_diff
    from reviewbot.review.prompt.layout import Layout
    from reviewbot.review.prompt.plan import build_plan
    from reviewbot.review.prompt.sections import PromptInput

    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    previous = Layout.from_json(json.loads(Path(layout_path).read_text())) if layout_path else None
    text = Path(diff_path).read_text()
    started = time.perf_counter()
    snapshot = DirSnapshot(Path(tree))
    options, notes = read_options(snapshot)
    plan = build_plan(PromptInput(title="Benchmark change", description="Generated for the benchmark.",
                                  diff=parse_diff(text), base_files={}, snapshot=snapshot, options=options,
                                  notes=notes), previous)
    seconds = time.perf_counter() - started
    stem = diff_path.removesuffix(".diff")
    Path(stem + ".prompt.json").write_text(json.dumps(plan.prompt.messages))
    Path(stem + ".layout.json").write_text(json.dumps(plan.layout.as_json()))
    cov = plan.coverage
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": round(seconds, 3), "peak_rss_mb": round(peak, 1), "rss_after_imports_mb": round(rss_before, 1),
            "prompt_tokens": plan.prompt.tokens, "reviewed": len(cov.reviewed), "partial": len(cov.partial),
            "skipped": len(cov.skipped), "context_files": len(cov.context), "reuse_tokens": plan.reuse_tokens}


def run(name: str, tree: Path, diff: str, previous: str | None = None) -> dict[str, float | int | str]:
    path = OUT / f"{name}.diff"
    path.write_text(diff)
    args = [sys.executable, __file__, "--measure", str(tree), str(path)] + ([previous] if previous else [])
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def prefix_share(first: str, second: str) -> float:
    """Share of the second prompt (system + user, in characters) that repeats the first byte for byte."""
    a, b = json.loads((OUT / first).read_text()), json.loads((OUT / second).read_text())
    old, new = "\x00".join(m["content"] for m in a), "\x00".join(m["content"] for m in b)
    same = next((i for i, (x, y) in enumerate(zip(old, new, strict=False)) if x != y), min(len(old), len(new)))
    return same / len(new)


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    files = generate()
    from reviewbot.repos.cache import RepoCache

    started = time.perf_counter()
    tree = RepoCache(OUT / "repos").checkout_sync(REPO, BASE_SHA, lambda dest: pack(files, dest))
    extract_s = time.perf_counter() - started
    big_head = big_pr(files)
    big = run("big", tree, unified(files, big_head))
    typical_head = typical_pr(files)
    typical = run("typical", tree, unified(files, typical_head))
    again = run("typical2", tree, unified(files, follow_up(typical_head)), str(OUT / "typical.layout.json"))
    big_again = run("big2", tree, unified(files, follow_up(big_head)), str(OUT / "big.layout.json"))
    results = {
        "source_mb": round(source_bytes(files) / 1e6, 2), "files": len(files), "extract_s": round(extract_s, 2),
        "big": big, "typical": typical, "typical_followup": again, "big_followup": big_again,
        "prefix_share_typical": round(prefix_share("typical.prompt.json", "typical2.prompt.json"), 4),
        "prefix_share_big": round(prefix_share("big.prompt.json", "big2.prompt.json"), 4),
    }
    print(json.dumps(results, indent=2))
    table = readme_table(results)
    print(table)
    if "--write-readme" in sys.argv:
        write_section("context", table)


def readme_table(r: dict[str, object]) -> str:
    big, typical = r["big"], r["typical"]
    assert isinstance(big, dict) and isinstance(typical, dict)
    rows = [
        ("Context build, 2,500-file PR (parse diff, filter, symbols, selection, layout)", "≤ 2 s",
         f"{big['seconds']} s"),
        ("Peak memory of that process (RSS, interpreter included)", "≤ 400 MB", f"{big['peak_rss_mb']} MB"),
        ("Prompt tokens, 2,500-file PR", "≤ 120k",
         f"{big['prompt_tokens']:,} ({big['reviewed']} files in full, {big['partial']} in part, "
         f"{big['skipped']} listed as skipped)"),
        ("Prompt tokens, typical 7-file PR", "≤ 120k",
         f"{typical['prompt_tokens']:,} ({typical['context_files']} context files)"),
        ("Byte-identical prefix after a 10-line follow-up push (typical PR)", "≥ 90%",
         f"{float(str(r['prefix_share_typical'])):.1%}"),
        ("Byte-identical prefix after a 10-line follow-up push (2,500-file PR)", "≥ 90%",
         f"{float(str(r['prefix_share_big'])):.1%}"),
        ("Extracting the base tarball into the repository cache (not part of the build)", "—",
         f"{r['extract_s']} s"),
    ]
    head = (f"Repository: {r['files']:,} files, {r['source_mb']} MB of Python/TypeScript/Go source "
            "(`bench/gen_repo.py`, seeded).\nCommand: `.venv/bin/python bench/bench_context.py --write-readme`.\n\n"
            "| Measure | Target | Result |\n|---|---|---|\n")
    return head + "\n".join(f"| {a} | {b} | {c} |" for a, b, c in rows)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--measure":
        print(json.dumps(measure(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)))
    else:
        main()
