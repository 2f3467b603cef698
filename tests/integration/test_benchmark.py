"""`reviewbot eval --benchmark`: a small benchmark in withmartian's code-review-benchmark format, made of local git
repositories (one pull request still open as `refs/pull/N/head`, one merged with a merge commit), the fake model
reviewing and judging."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model import FakeModel, answering, findings_json, judge_lists, judging
from tests.integration.test_cli_review import git, model_env, new_repo, run_cli

BASE = "def ratio(a, b):\n    return a / b\n\n\ndef name(user):\n    return user.name\n"
PR1 = BASE.replace("return a / b", "if b == 0:\n        return 0\n    return a // b")  # integer division, lines 2-4
PR2 = BASE.replace("return user.name", "return user.profile.name")  # user.profile may be None, line 6


def finding(line: int, title: str, body: str) -> dict[str, Any]:
    return {"path": "calc.py", "line": line, "start_line": None, "side": "RIGHT", "severity": "major",
            "category": "bug", "title": title, "body": body, "suggestion": None, "confidence": 0.9, "cwe": None}


def review_answer(request: dict[str, Any]) -> str:
    """The fake model's review: what it says depends on which change it is shown."""
    prompt = json.dumps(request["messages"])
    if "a // b" in prompt:
        return findings_json([finding(4, "Floor division truncates the ratio", "`a // b` drops the fraction."),
                              finding(2, "Zero check hides bad input", "Returning 0 for b == 0 masks errors.")])
    return findings_json([finding(6, "Style: prefer getattr", "A nit about attribute access.")])


def same_issue(golden: str, comment: str) -> bool:
    """The fake judge: same issue when they share the key word."""
    return any(word in golden.lower() and word in comment.lower() for word in ("floor", "truncat"))


@pytest.fixture
def benchmark(tmp_path: Path) -> tuple[Path, Path]:
    """(golden_comments dir, repos dir): acme/calc with PR 1 open (refs/pull/1/head) and PR 2 merged."""
    clone = new_repo(tmp_path / "repos" / "acme" / "calc")
    (clone / "calc.py").write_text(BASE)
    git(clone, "add", "-A")
    git(clone, "commit", "-qm", "base")
    for number, text in ((1, PR1), (2, PR2)):
        git(clone, "checkout", "-qb", f"pr{number}", "main")
        (clone / "calc.py").write_text(text)
        git(clone, "commit", "-qam", f"PR {number}")
        git(clone, "update-ref", f"refs/pull/{number}/head", "HEAD")
    git(clone, "checkout", "-q", "main")
    git(clone, "merge", "-q", "--no-ff", "-m", "Merge pull request #2", "pr2")
    for number in (1, 2):
        git(clone, "branch", "-qD", f"pr{number}")
    golden = tmp_path / "bench" / "golden_comments"
    golden.mkdir(parents=True)
    (golden / "calc.json").write_text(json.dumps([
        {"pr_title": "Safer ratio", "url": "https://github.com/acme/calc/pull/1",
         "comments": [{"comment": "Floor division truncates non-integer ratios.", "severity": "High"},
                      {"comment": "The zero check is never tested.", "severity": "Low"}]},
        {"pr_title": "Profile names", "url": "https://github.com/acme/calc/pull/2",
         "comments": [{"comment": "user.profile can be None for deleted users.", "severity": "Medium"}]},
    ]))
    return golden.parent, tmp_path / "repos"


def test_benchmark_writes_candidates_and_scores_with_the_model_judge(benchmark: tuple[Path, Path], tmp_path: Path,
                                                                     fake_model: FakeModel) -> None:
    bench, repos = benchmark
    fake_model.default = judging(answering(review_answer), same_issue)
    out = tmp_path / "results"
    done = run_cli(["eval", "--benchmark", str(bench), "--repos", str(repos), "--out", str(out), "--format", "json"],
                   model_env(fake_model), tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    totals = report["totals"]
    # 3 golden comments, 3 comments posted; only "floor division" matches: precision 1/3, recall 1/3.
    assert (totals["expected"], totals["reported"], totals["true_positives"]) == (3, 3, 1)
    assert totals["precision"] == pytest.approx(1 / 3) and totals["recall"] == pytest.approx(1 / 3)
    assert totals["f1"] == pytest.approx(1 / 3)
    [first, second] = report["pulls"]
    assert first["matches"] == [{"golden": "Floor division truncates non-integer ratios.",
                                 "comment": "Floor division truncates the ratio"}]
    assert second["comments"] == 1 and second["true_positives"] == 0
    # Each PR was reviewed on its own diff: the merged PR 2 against main just before its merge commit.
    reviews = [r for r in fake_model.review_requests() if judge_lists(r.json) is None]
    prompts = [json.dumps(r.json["messages"]) for r in reviews]
    assert len(prompts) == 2 and "a // b" in prompts[0] and "user.profile.name" not in prompts[0]
    assert "user.profile.name" in prompts[1] and "a // b" not in prompts[1]
    # The benchmark's own files: candidates keyed by the golden URL and tool, review data for its step 3 judge.
    candidates = json.loads((out / "candidates.json").read_text())
    assert set(candidates) == {"https://github.com/acme/calc/pull/1", "https://github.com/acme/calc/pull/2"}
    texts = {c["text"]: (c["path"], c["line"]) for c in candidates["https://github.com/acme/calc/pull/1"]["reviewbot"]}
    assert texts == {"Floor division truncates the ratio. `a // b` drops the fraction.": ("calc.py", 4),
                     "Zero check hides bad input. Returning 0 for b == 0 masks errors.": ("calc.py", 2)}
    data = json.loads((out / "benchmark_data.json").read_text())
    entry = data["https://github.com/acme/calc/pull/2"]
    assert entry["golden_comments"] == [{"comment": "user.profile can be None for deleted users.",
                                         "severity": "Medium"}]
    assert entry["reviews"][0]["tool"] == "reviewbot" and len(entry["reviews"][0]["review_comments"]) == 1


def test_a_missing_pull_request_head_says_how_to_fetch_it(benchmark: tuple[Path, Path], tmp_path: Path,
                                                          fake_model: FakeModel) -> None:
    bench, repos = benchmark
    git(repos / "acme" / "calc", "update-ref", "-d", "refs/pull/1/head")
    done = run_cli(["eval", "--benchmark", str(bench), "--repos", str(repos), "--out", str(tmp_path / "r"),
                    "--no-judge"], model_env(fake_model), tmp_path)
    assert done.returncode == 1
    assert "not judged" in done.stdout and "acme/calc/pull/1 ERROR" in done.stdout  # the table
    assert "refs/pull/1/head is not in" in done.stderr and "fetch origin '+refs/pull/*/head:refs/pull/*/head'" \
        in done.stderr
    candidates = json.loads((tmp_path / "r" / "candidates.json").read_text())
    assert list(candidates) == ["https://github.com/acme/calc/pull/2"]  # the other one is still reviewed
    assert all(judge_lists(r.json) is None for r in fake_model.requests)  # --no-judge: no judge request
