"""Planted cross-file flaws an audit's plan makes findable: a corpus of bench/planted/ (corpus.yaml, written
independently of the planner; or heldout.yaml, written blind to it after its flow rules were tuned on corpus.yaml)
applied to its real releases, planned by this planner and by the previous one (the planner at PREVIOUS_PLANNER, run
from a `git archive` of that commit), and judged by bench/planted/ideal.py: a flaw is findable when one request (a
chunk's, or a flow request's) holds its source line, its sink line and the definition of every function between.
Every release of the corpus in its own tree. None when the corpus is not on this branch (it is merged separately).

    .venv/bin/python -m bench.audit_planted [--corpus heldout.yaml] [--skip-previous]   # a table per plan, case by case
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from reviewbot.audit.planner import plan_audit
from reviewbot.repos.dirsnapshot import DirSnapshot

if TYPE_CHECKING:
    from bench.planted.cases import Case
    from bench.planted.ideal import Verdict

PREVIOUS_PLANNER = "9d5bf0f"  # main before issue 31's flow plan
ROOT = Path(__file__).resolve().parents[1]
DIRECTORY = "django"
# Run inside the previous commit's code: every chunk's request text of the planned tree, as JSON.
REQUESTS_SCRIPT = """
import json, sys
from pathlib import Path
from reviewbot.audit.planner import plan_audit
from reviewbot.repos.dirsnapshot import DirSnapshot
snapshot = DirSnapshot(Path(sys.argv[1]))
plan = plan_audit(snapshot, sys.argv[2])
print(json.dumps(["\\n\\n".join(m["content"] for m in plan.messages(c, snapshot.read)) for c in plan.chunks]))
"""


def requests(tree: Path, directory: str = DIRECTORY) -> list[str]:
    """Every request's text: the chunks' and the flow requests' (a flow no chunk holds whole has its own)."""
    snapshot = DirSnapshot(tree)
    plan = plan_audit(snapshot, directory)
    return ["\n\n".join(m["content"] for m in plan.messages(c, snapshot.read)) for c in plan.chunks]


def previous_requests(tree: Path, scratch: Path, directory: str = DIRECTORY) -> list[str]:
    """The same tree planned by the planner of PREVIOUS_PLANNER, in a subprocess on that commit's code."""
    code = scratch / "previous-planner"
    if not code.is_dir():
        data = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", PREVIOUS_PLANNER, "reviewbot"],
                              check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(code, filter="data")
    out = subprocess.run([sys.executable, "-c", REQUESTS_SCRIPT, str(tree), directory], capture_output=True,
                         text=True, cwd=code,  # `-c` puts the working directory first on the import path
                         env={"PYTHONPATH": str(code), "PATH": "/usr/bin:/bin", "HOME": str(scratch)})
    if out.returncode != 0:
        raise RuntimeError(f"the previous planner failed: {out.stderr[-2000:]}")
    texts = json.loads(out.stdout)
    assert isinstance(texts, list)
    return [str(t) for t in texts]


def verdicts(scratch: Path, corpus_file: str = "corpus.yaml",
             previous: bool = True) -> dict[str, dict[str, list[Verdict]]] | None:
    """plan name -> release ("package version") -> the ideal stand-in's verdict on each case of
    bench/planted/<corpus_file>, each release planted in its own tree under scratch and planned by this planner (and
    the previous one); None without the corpus."""
    if importlib.util.find_spec("bench.planted") is None:
        return None
    from bench.planted.apply import default_cache, materialise  # the corpus is merged from another branch
    from bench.planted.cases import HERE, load_corpus
    from bench.planted.ideal import judge

    releases: dict[tuple[str, str, str], list[Case]] = {}
    for case in load_corpus(HERE / corpus_file):
        releases.setdefault((case.package, case.version, case.audited), []).append(case)
    out: dict[str, dict[str, list[Verdict]]] = {}
    for (package, version, audited), cases in sorted(releases.items()):
        tree = scratch / f"planted-{Path(corpus_file).stem}-{package}-{version}"
        materialise(cases, tree, default_cache())
        directory = "" if audited == "." else audited
        plans = {"after": requests(tree, directory)}
        if previous:
            plans[f"previous planner ({PREVIOUS_PLANNER})"] = previous_requests(tree, scratch, directory)
        for name, texts in plans.items():
            out.setdefault(name, {})[f"{package} {version}"] = judge(texts, cases)
    return out


def findable(scratch: Path, corpus_file: str = "corpus.yaml") -> dict[str, tuple[int, int, int]] | None:
    """plan name -> (planted flows findable, planted flows, extra requests showing one whole: what deduplication
    folds), over every release of the corpus and per release; None without the corpus."""
    judged = verdicts(scratch, corpus_file)
    if judged is None:
        return None
    from bench.planted.ideal import summarise

    out: dict[str, tuple[int, int, int]] = {}
    for name, releases in judged.items():
        everything = [verdict for group in releases.values() for verdict in group]
        for label, group in [(name, everything), *((f"{name}, {r}", g) for r, g in releases.items())]:
            total = summarise(group)
            out[label] = (total.found, total.cases, total.duplicates)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Planted flows an audit's plan makes findable, case by case.")
    parser.add_argument("--corpus", default="corpus.yaml",
                        help="a corpus file of bench/planted/: corpus.yaml (default) or heldout.yaml")
    parser.add_argument("--skip-previous", action="store_true", help="only this planner")
    parser.add_argument("--scratch", type=Path, help="where the trees go (default: a new temporary directory)")
    args = parser.parse_args(argv)
    from bench.planted.ideal import table

    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="audit-planted-"))
    judged = verdicts(scratch, args.corpus, previous=not args.skip_previous)
    if judged is None:
        print("bench/planted/ is not on this branch")
        return 1
    for name, releases in judged.items():
        print(f"## {name}: bench/planted/{args.corpus}\n")
        print(table([verdict for group in releases.values() for verdict in group]), end="\n\n")
    # A release this planner sends as one request has every case found whatever its flow rules do.
    from bench.planted.cases import HERE, load_corpus

    audited = {(c.package, c.version): c.audited for c in load_corpus(HERE / args.corpus)}
    counts = [f"{package} {version}: {len(requests(tree, '' if where == '.' else where))}"
              for (package, version), where in sorted(audited.items())
              for tree in [scratch / f"planted-{Path(args.corpus).stem}-{package}-{version}"]]
    print("Requests this planner sends per release: " + "; ".join(counts) + ".")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
