"""Planted cross-file flaws an audit's plan makes findable: the corpus of bench/planted/ (written independently of
the planner) applied to Django 5.2.2, planned by this planner and by the previous one (the planner at
PREVIOUS_PLANNER, run from a `git archive` of that commit), and judged by bench/planted/ideal.py: a flaw is findable
when one request (a chunk's, or a flow request's) holds its source line, its sink line and the definition of every
function between. Every release of the corpus (Django, and the cases planted in other packages) in its own
tree. None when the corpus is not on this branch (it is merged separately)."""

from __future__ import annotations

import importlib.util
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

from reviewbot.audit.planner import plan_audit
from reviewbot.repos.dirsnapshot import DirSnapshot

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


def findable(scratch: Path) -> dict[str, tuple[int, int, int]] | None:
    """plan name -> (planted flows findable, planted flows, extra requests showing one whole: what deduplication
    folds), over every release of the corpus, each planted in its own tree; None without the corpus."""
    if importlib.util.find_spec("bench.planted") is None:
        return None
    from bench.planted.apply import default_cache, materialise  # the corpus is merged from another branch
    from bench.planted.cases import Case, load_corpus
    from bench.planted.ideal import judge, summarise

    releases: dict[tuple[str, str, str], list[Case]] = {}
    for case in load_corpus():
        releases.setdefault((case.package, case.version, case.audited), []).append(case)
    out: dict[str, list[int]] = {}
    for (package, version, audited), cases in sorted(releases.items()):
        tree = scratch / f"planted-{package}-{version}"
        materialise(cases, tree, default_cache())
        directory = "" if audited == "." else audited
        for name, texts in (("after", requests(tree, directory)), (f"previous planner ({PREVIOUS_PLANNER})",
                                                                    previous_requests(tree, scratch, directory))):
            total = summarise(judge(texts, cases))
            for label in (name, f"{name}, {package} {version}"):
                counts = out.setdefault(label, [0, 0, 0])
                counts[0], counts[1], counts[2] = counts[0] + total.found, counts[1] + total.cases, \
                    counts[2] + total.duplicates
    return {name: (found, cases, twice) for name, (found, cases, twice) in out.items()}
