"""`reviewbot eval --fixes` through the fake model's HTTP: each expected finding's fix counted at every stage
(applied, checked, verified, gone on a re-review), and a fix whose edits do not apply stopped at the first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import MODEL_TOKEN
from tests.fakes.model import FakeModel, answering, findings_json, fix_json
from tests.helpers import BASE_CALC, BUG_LINE, HEAD_CALC, bug_finding
from tests.integration.test_cli_review import run_cli

BUG = "    return result / len(items)\n"
GUARDED = "    return result / len(items) if items else 0.0\n"


def write_case(root: Path, name: str, path: str) -> None:
    (root / name / "base" / "app").mkdir(parents=True)
    (root / name / "head" / "app").mkdir(parents=True)
    (root / name / "base" / path).write_text(BASE_CALC)
    (root / name / "head" / path).write_text(HEAD_CALC)
    (root / name / "expected.json").write_text(json.dumps({
        "title": "Average the totals", "language": "python",
        "findings": [{"path": path, "line": BUG_LINE, "category": "bug",
                      "why": "total() divides by the item count: an empty list raises ZeroDivisionError"}]}))


def reviewing(request: dict[str, Any]) -> str:
    """The bug is reported while the unguarded line is what the change shows (each case has one file)."""
    shown = "\n".join(str(m.get("content")) for m in request["messages"] if isinstance(m, dict))
    if BUG.strip() not in shown or GUARDED.strip() in shown:
        return findings_json([])
    return findings_json([bug_finding(path=p) for p in ("app/calc.py", "app/stats.py", "app/other.py") if p in shown])


def fixing(request: dict[str, Any]) -> str:
    """The guard, except in app/other.py, where the "fix" only adds a comment (the verifier is fooled by it)."""
    if "`app/other.py`" in json.dumps(request["messages"][-1]):
        return fix_json([("app/other.py", "def count(items):\n", "def count(items):  # checked\n")])
    return fix_json([("app/calc.py", BUG, GUARDED)])


def test_fixes_are_counted_at_every_stage_against_the_fake_model(tmp_path: Path, fake_model: FakeModel) -> None:
    suite = tmp_path / "suite"
    write_case(suite, "a-fixable", "app/calc.py")
    write_case(suite, "b-edits-miss", "app/stats.py")  # the fake's edits name app/calc.py: they cannot apply here
    write_case(suite, "c-still-there", "app/other.py")  # a change the re-review still flags
    fake_model.default = answering(reviewing, fix=fixing)
    done = run_cli(["eval", "--fixes", "--suite", str(suite), "--format", "json"],
                   {"REVIEWBOT_MODEL_BASE_URL": f"{fake_model.url}/v1", "CLOUDFLARE_API_TOKEN": MODEL_TOKEN},
                   tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["totals"] == {"findings": 3, "applied": 2, "checked": 2, "verified": 2, "fixed": 1,
                                "fixed_share": 0.333}
    by_case = {f["case"]: f for f in report["findings"]}
    assert by_case["a-fixable"]["reached"] == "fixed"
    assert by_case["b-edits-miss"] == {"case": "b-edits-miss", "path": "app/stats.py", "line": BUG_LINE,
                                       "reached": "", "declined": "does-not-apply"}
    assert (by_case["c-still-there"]["reached"], by_case["c-still-there"]["declined"]) == ("verified",
                                                                                          "still-reported")
    # The re-review saw the fixed line, and no longer reported the bug.
    assert any(GUARDED.strip() in json.dumps(r.json) for r in fake_model.requests if isinstance(r.json, dict))

    table = run_cli(["eval", "--fixes", "--suite", str(suite), "--case", "a-fixable"],
                    {"REVIEWBOT_MODEL_BASE_URL": f"{fake_model.url}/v1", "CLOUDFLARE_API_TOKEN": MODEL_TOKEN},
                    tmp_path, timeout=120)
    assert table.returncode == 0, table.stderr
    assert "1 findings; applied 1, checked 1, verified 1, fixed 1; fixed share 100.0%" in table.stdout


def test_fixes_need_a_model_not_recorded_answers(tmp_path: Path) -> None:
    done = run_cli(["eval", "--fixes", "--model", "fake"], {}, tmp_path)
    assert done.returncode == 2 and "needs a model" in done.stderr
