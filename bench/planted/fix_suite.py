"""The planted flaws as an evaluation suite for `reviewbot eval --fixes`: each plant one case, its patched files
before (base/) and after (head/) the patch, the sink as the expected finding. Offline, from the benchmark cache.

    .venv/bin/python -m bench.planted.fix_suite OUT [--cache DIR] [--case ID]
    .venv/bin/reviewbot eval --fixes --suite OUT
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench.planted.apply import ReleaseMissing, apply_patch, copy_release, default_cache
from bench.planted.cases import Case, load_corpus


def write_case(case: Case, dest: Path, cache: Path) -> None:
    """One case directory: the patched files as the release has them and as the patch leaves them."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        tree.mkdir()
        copy_release(case.package, case.version, tree, cache)
        files = case.patched_files()
        before = {f: (tree / f).read_text(encoding="utf-8") for f in files if (tree / f).is_file()}
        apply_patch(tree, case)
        after = {f: (tree / f).read_text(encoding="utf-8") for f in files}
    for side, texts in (("base", before), ("head", after)):
        for path, text in texts.items():
            target = dest / case.id / side / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    expected = {"title": case.title, "description": case.flow, "language": case.language, "clean": False,
                "findings": [{"path": case.sink.path, "line": case.sink.line, "category": "security",
                              "why": f"{case.title} ({case.cwe}): {case.flow}"}]}
    (dest / case.id / "expected.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the suite's directory (created)")
    parser.add_argument("--cache", type=Path, default=default_cache(), help="the benchmark cache")
    parser.add_argument("--case", action="append", default=[], help="only this plant (repeatable)")
    args = parser.parse_args(argv)
    cases = [c for c in load_corpus() if not args.case or c.id in args.case]
    written, missing = 0, []
    for case in cases:
        try:
            write_case(case, args.out, args.cache)
            written += 1
        except ReleaseMissing as exc:
            missing.append(f"{case.id}: {exc}")
    print(f"{written} of {len(cases)} planted cases written to {args.out}")
    for line in missing:
        print(f"skipped {line}", file=sys.stderr)
    return 0 if written else 1


if __name__ == "__main__":
    raise SystemExit(main())
