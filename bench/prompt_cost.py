"""Tokens and estimated cost per real pull request: Django patch releases reviewed with `reviewbot review --dry-run`.

    .venv/bin/python -m bench.prompt_cost [--write-readme]

The estimate, at K2.6 prices ($0.95/M input, $0.16/M cached input, $4.00/M output), counts a first review (no
earlier layout): the review request (its whole prompt uncached, REVIEW_COMPLETION tokens of answer) and one
verification request (the same prompt, now cached in whole 64-token blocks, plus VERIFY_EXTRA uncached tokens of
candidates and VERIFY_COMPLETION tokens of verdicts). Tokens are reviewbot's own estimate (4 characters a token
until the provider's usage calibrates it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any

from bench.readme import write_section
from bench.realcode import CACHE, django_repo
from reviewbot.inference.pricing import cost
from reviewbot.settings.catalogue import DEFAULT_PRICES

MODEL = "@cf/moonshotai/kimi-k2.6"
PAIRS = (("5.2.1", "5.2.2"), ("5.2", "5.2.1"))
REVIEW_COMPLETION = 2_000  # the dry run's own assumption (cli/local_review.py)
VERIFY_EXTRA = 1_500  # the verification instructions and a few candidates with their excerpts
VERIFY_COMPLETION = 500
TARGET = 0.05


def plan(base: str, head: str) -> dict[str, Any]:
    env = {**os.environ, "REVIEWBOT_DATA_DIR": str(CACHE / "data"), "REVIEWBOT_MODEL": MODEL}
    done = subprocess.run([sys.executable, "-m", "reviewbot", "review", "--repo", str(django_repo()),
                           "--base", f"v{base}", "--head", f"v{head}", "--dry-run", "--format", "json"],
                          env=env, check=True, capture_output=True, text=True)
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def estimate(prompt: int) -> float:
    price = DEFAULT_PRICES[MODEL]
    cached = prompt // 64 * 64
    return (cost(price, prompt, 0, REVIEW_COMPLETION)
            + cost(price, prompt + VERIFY_EXTRA, cached, VERIFY_COMPLETION))


def measure(base: str, head: str) -> dict[str, Any]:
    data = plan(base, head)
    sections = {s["name"]: s["tokens"] for s in data["sections"]}
    coverage = data["coverage"]
    callers = [c for c in coverage["context"] if "whose signature" in c["reason"] or "(removed" in c["reason"]]
    callers_out = [c for c in coverage["left_out"] if "whose signature" in c["why"] or "(removed" in c["why"]]
    diff = sections.get("diff", 0) + sections.get("diff, changed by the newest push", 0)
    prompt = int(data["prompt_tokens_estimate"])
    return {"pr": f"{base} → {head}", "files": len(coverage["reviewed"]) + len(coverage["partial"]),
            "prompt_tokens": prompt, "diff_tokens": diff, "context_tokens": sections.get("context files", 0),
            "context_files": len(coverage["context"]), "left_out": len(coverage["left_out"]),
            "callers_in": len(callers), "callers_listed": len(callers_out),
            "cost_usd": round(estimate(prompt), 4), "floor_usd": round(estimate(prompt - sections["context files"]), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write-readme", action="store_true")
    args = parser.parse_args()
    rows = [measure(base, head) for base, head in PAIRS]
    print(json.dumps(rows, indent=2))
    if args.write_readme:
        write_section("cost", readme_text(rows))


def readme_text(rows: list[dict[str, Any]]) -> str:
    lines = ["Command: `.venv/bin/python -m bench.prompt_cost --write-readme`: `reviewbot review --dry-run` on Django "
             "patch releases from PyPI committed into a local repository (bench/realcode.py); cost at K2.6 prices "
             f"for the review request ({REVIEW_COMPLETION:,} answer tokens) and one verification request (the same "
             f"prompt cached, {VERIFY_EXTRA:,} more tokens, {VERIFY_COMPLETION} answer tokens).", "",
             "| Pull request | Files | Prompt tokens (diff + context) | Context files (related, left out) | "
             "Callers of changed signatures: in / listed | Estimated cost (target ≤ $0.05) | Without any context |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        verdict = "meets" if r["cost_usd"] <= TARGET else f"misses by ${r['cost_usd'] - TARGET:.3f}"
        lines.append(f"| Django {r['pr']} | {r['files']} | {r['prompt_tokens']:,} ({r['diff_tokens']:,} + "
                     f"{r['context_tokens']:,}) | {r['context_files']} ({r['left_out']} left out) | "
                     f"{r['callers_in']} / {r['callers_listed']} | ${r['cost_usd']:.3f} ({verdict}) | "
                     f"${r['floor_usd']:.3f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
