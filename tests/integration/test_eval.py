"""`reviewbot eval`: exact metrics on a tiny suite with known answers (recorded and through the fake model's HTTP),
and the shipped suite offline, as CI runs it."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MODEL_TOKEN
from tests.fakes.model import FakeModel, answering, findings_json
from tests.integration.test_cli_review import run_cli

SHIPPED = Path(__file__).resolve().parents[2] / "eval"
BASE = "".join(f"line_{n} = {n}\n" for n in range(1, 31))


def finding(path: str, line: int, category: str = "bug", title: str = "", severity: str = "major") -> dict[str, Any]:
    return {"path": path, "line": line, "start_line": None, "side": "RIGHT", "severity": severity,
            "category": category, "title": title or f"{category} at {path}:{line}", "body": "Because.",
            "suggestion": None, "confidence": 0.8, "cwe": None}


# name → (expected findings, recorded answer, verdicts by title); every case changes lines 2, 8 and 20 of m.py.
CASES: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]] = {
    "a-two-bugs": ([{"path": "m.py", "start_line": 2, "line": 3, "category": "bug"},
                    {"path": "m.py", "line": 8, "category": ["security", "bug"]}],
                   [finding("m.py", 5), finding("m.py", 20, title="Not a bug at all"),
                    finding("m.py", 12, title="Refuted by the second look")],
                   {"Refuted by the second look": {"verdict": "refute", "severity": None, "reason": "guarded"}}),
    "b-clean": ([], [finding("m.py", 8, severity="minor")], {}),
    "c-wrong-category": ([{"path": "m.py", "line": 20, "category": "bug"}], [finding("m.py", 21, "performance")], {}),
}


def write_suite(root: Path) -> Path:
    head = BASE.replace("line_2 =", "line_2 = -").replace("line_8 =", "line_8 = -").replace("line_20 =", "line_20 = -")
    for name, (expected, answer, verdicts) in CASES.items():
        case = root / name
        (case / "base").mkdir(parents=True)
        (case / "head").mkdir(parents=True)
        (case / "base" / "m.py").write_text(BASE)
        (case / "head" / "m.py").write_text(head)
        spec = {"title": f"Case {name}", "language": "python", "findings": expected, "clean": not expected}
        (case / "expected.json").write_text(json.dumps(spec))
        (case / "recorded.json").write_text(json.dumps({"passes": [{"summary": name, "findings": answer}],
                                                        "verdicts": verdicts}))
    return root


def eval_json(args: list[str], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    done = run_cli(["eval", *args, "--format", "json"], env, cwd)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


@pytest.mark.parametrize(("judge", "tp", "fp", "fn"), [("category", 1, 3, 2), ("location", 2, 2, 1)])
def test_metrics_on_a_tiny_suite_with_known_answers(tmp_path: Path, judge: str, tp: int, fp: int, fn: int) -> None:
    suite = write_suite(tmp_path / "suite")
    totals = eval_json(["--suite", str(suite), "--model", "fake", "--judge", judge], {}, tmp_path)["totals"]
    assert (totals["true_positives"], totals["false_positives"], totals["false_negatives"]) == (tp, fp, fn)
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    assert totals["precision"] == pytest.approx(precision) and totals["recall"] == pytest.approx(recall)
    assert totals["f1"] == pytest.approx(2 * precision * recall / (precision + recall))
    assert totals["comments_per_pr"] == pytest.approx(4 / 3)  # the refuted candidate is not a comment
    assert (totals["false_positives_on_clean"], totals["clean_cases_flagged"], totals["clean_cases"]) == (1, 1, 1)
    assert totals["dropped_by_verification"] == 1
    # a-two-bugs: review + verification share the prefix; the others are one request each (minor: not verified;
    # c's single major finding is verified too).
    assert totals["requests"] == 5 and totals["cached_tokens"] > 0
    assert totals["cost_per_case_usd"] == pytest.approx(totals["cost_usd"] / 3)


def test_the_real_model_path_gives_the_same_numbers_through_http(tmp_path: Path, fake_model: FakeModel) -> None:
    suite = write_suite(tmp_path / "suite")
    answers = {f"Case {name}": answer for name, (_, answer, _) in CASES.items()}

    def by_case(request: dict[str, Any]) -> str:
        user = request["messages"][1]["content"]
        return findings_json(next(a for title, a in answers.items() if f"Title: {title}\n" in user))

    fake_model.default = answering(by_case, {"Refuted by the second look": ("refute", None)})
    env = {"REVIEWBOT_MODEL_BASE_URL": f"{fake_model.url}/v1", "CLOUDFLARE_API_TOKEN": MODEL_TOKEN}
    report = eval_json(["--suite", str(suite), "--model", "real"], env, tmp_path)
    totals = report["totals"]
    assert (totals["true_positives"], totals["false_positives"], totals["false_negatives"]) == (1, 3, 2)
    assert len(fake_model.requests) == totals["requests"] == 5
    assert report["model"] == "@cf/moonshotai/kimi-k2.6" and totals["cost_usd"] > 0
    assert 0 < totals["cache_hit_ratio"] < 1  # the verification request reused the review's prefix


def test_the_shipped_suite_runs_offline_and_prints_the_metrics(tmp_path: Path) -> None:
    specs = [json.loads(p.read_text()) for p in sorted(SHIPPED.glob("*/expected.json"))]
    assert len(specs) >= 20
    assert {s["language"] for s in specs} == {"python", "typescript", "go"}
    assert sum(1 for s in specs if s.get("clean")) >= 5 and sum(1 for s in specs if s.get("cross_file")) >= 6
    report = eval_json(["--suite", str(SHIPPED), "--model", "fake"], {}, tmp_path)
    totals = report["totals"]
    assert totals["cases"] == len(specs) and totals["errors"] == 0
    assert all(math.isfinite(totals[k]) for k in ("recall", "precision", "f1", "cache_hit_ratio"))
    table = run_cli(["eval", "--suite", str(SHIPPED), "--model", "fake"], {}, tmp_path)
    assert table.returncode == 0 and "recall" in table.stdout and "false positives on clean changes" in table.stdout


def test_eval_needs_credentials_for_the_real_model_and_says_which(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite")
    done = run_cli(["eval", "--suite", str(suite)], {}, tmp_path)
    assert done.returncode == 1 and "CLOUDFLARE_API_TOKEN" in done.stderr and "--model fake" in done.stderr
