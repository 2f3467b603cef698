"""Caller recall on real pull requests: every file that calls a function whose signature the PR changes is in
the context or listed as left out, with the reason.

Run: .venv/bin/python -m bench.recall_real [base head ...]  (default: the Django patch releases of bench_real)

The truth is found independently of the context engine: Python's own `ast` compares each changed module's
function signatures at base and head, and a caller is any other base file with a call `name(` (`Class(` for a
changed `__init__`). Exits 1 when a caller is neither shown nor listed.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

from bench.bench_real import PYTHON, django_repo, git


def signatures(source: str) -> dict[str, str]:
    """`Class.method` / `function` -> its argument list, for every function of a module."""
    out: dict[str, str] = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for child in node.body:
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    out[f"{node.name}.{child.name}"] = ast.dump(child.args)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out[node.name] = ast.dump(node.args)
    return out


def changed_signatures(repo: str, base: str, head: str) -> list[tuple[str, str]]:
    """(module path, called name) for functions whose arguments differ between base and head."""
    found = []
    for path in git(repo, "diff", "--name-only", "--diff-filter=M", base, head).split():
        if not path.endswith(".py"):
            continue
        before = signatures(git(repo, "show", f"{base}:{path}"))
        after = signatures(git(repo, "show", f"{head}:{path}"))
        for qualified, args in before.items():
            if qualified in after and after[qualified] != args:
                owner, _, name = qualified.rpartition(".")
                found.append((path, owner if name == "__init__" and owner else name))
    return found


def callers(repo: str, base: str, path: str, name: str) -> list[str]:
    found = subprocess.run(["git", "-C", repo, "grep", "-l", "-E", rf"\b{re.escape(name)}\(", base, "--", "*.py"],
                           capture_output=True, text=True, check=False)  # exit 1: no match
    listed = found.stdout.split()
    return sorted({p.split(":", 1)[1] for p in listed} - {path})


@dataclass
class Recall:
    """One review's callers of changed signatures: how many, how many shown, which neither shown nor listed."""

    total: int = 0
    shown: int = 0
    tokens: int = 0  # the prompt's estimated tokens
    missing: list[str] = field(default_factory=list)


def check(repo: str, base: str, head: str) -> Recall:
    with tempfile.TemporaryDirectory() as data:
        out = subprocess.run([PYTHON, "-m", "reviewbot", "review", "--repo", repo, "--base", base, "--head", head,
                              "--dry-run", "--format", "json"], check=True, capture_output=True, text=True,
                             env={**os.environ, "REVIEWBOT_DATA_DIR": data}).stdout
    plan = json.loads(out)
    coverage = plan["coverage"]
    shown = {c["path"] for c in coverage["context"]}
    listed = {c["path"]: c["why"] for c in coverage["left_out"]}
    changed = set(git(repo, "diff", "--name-only", base, head).split())
    missing = []
    total = in_context = 0
    for path, name in changed_signatures(repo, base, head):
        for caller in callers(repo, base, path, name):
            if not caller.endswith(".py"):
                continue
            if caller in changed:
                continue  # in the diff itself
            total += 1
            in_context += caller in shown
            if caller not in shown and caller not in listed:
                missing.append(f"{base}..{head}: {caller} calls `{name}` ({path})")
    print(f"{base}..{head}: {total} calling file(s); {in_context} in the context, "
          f"{total - in_context - len(missing)} listed as left out, {len(missing)} missing", file=sys.stderr)
    return Recall(total, in_context, plan["prompt_tokens_estimate"], missing)


def main() -> None:
    args = sys.argv[1:]
    repo = str(django_repo())
    pairs = list(zip(args[::2], args[1::2], strict=True)) or [("v5.2", "v5.2.1"), ("v5.2.1", "v5.2.2")]
    missing = [m for base, head in pairs for m in check(repo, base, head).missing]
    print("\n".join(missing) or "every caller is in the context or listed as left out")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
