"""`reviewbot review` on a local git repository: JSON output, dry-run plan, affinity per branch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MODEL_TOKEN
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import BASE_CALC, BUG_LINE, HEAD_CALC, bug_finding


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def new_repo(root: Path) -> Path:
    """An empty git repository on `main` with a committer configured."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "dev@example.com")
    git(root, "config", "user.name", "Dev")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = new_repo(tmp_path / "project")
    (root / "app").mkdir()
    (root / "app" / "calc.py").write_text(BASE_CALC)
    (root / "README.md").write_text("# project\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "feature")
    (root / "app" / "calc.py").write_text(HEAD_CALC)
    git(root, "commit", "-qam", "Rewrite total")
    return root


def run_cli(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CLOUDFLARE_", "REVIEWBOT_"))}
    # The default data dir is the user's: a test's goes beside its working directory, never into the real one.
    clean["XDG_DATA_HOME"] = str(cwd.resolve().parent / f"{cwd.resolve().name}.data")
    return subprocess.run([sys.executable, "-m", "reviewbot", *args], env=clean | env, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def model_env(fake_model: FakeModel) -> dict[str, str]:
    return {"REVIEWBOT_MODEL_BASE_URL": f"{fake_model.url}/v1", "CLOUDFLARE_API_TOKEN": MODEL_TOKEN}


def test_json_output_is_exactly_one_object_with_findings_and_usage(repo: Path, fake_model: FakeModel) -> None:
    fake_model.script_reply(findings_json([bug_finding()], "Average, not total."))
    done = run_cli(["review", "--repo", str(repo), "--base", "main", "--format", "json"], model_env(fake_model),
                   repo.parent)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)  # the whole stdout is one JSON document
    assert {"summary", "findings", "usage", "base", "head", "sections"} <= set(result)
    assert result["summary"] == "Average, not total."
    assert [(f["path"], f["line"]) for f in result["findings"]] == [("app/calc.py", BUG_LINE)]
    assert set(result["usage"]) == {"prompt_tokens", "cached_tokens", "completion_tokens", "cost_usd"}
    assert result["usage"]["prompt_tokens"] > 0 and result["usage"]["cost_usd"] > 0
    [request] = fake_model.review_requests()
    assert "return sum(i.price for i in items)" in request.json["messages"][1]["content"]  # base file in context


def test_same_branch_reuses_the_affinity_after_new_commits(repo: Path, fake_model: FakeModel) -> None:
    args = ["review", "--repo", str(repo), "--base", "main", "--format", "json"]
    assert run_cli(args, model_env(fake_model), repo).returncode == 0
    (repo / "app" / "calc.py").write_text(HEAD_CALC + "\n\ndef extra():\n    return 1\n")
    git(repo, "commit", "-qam", "More")
    assert run_cli(args, model_env(fake_model), repo).returncode == 0
    git(repo, "checkout", "-qb", "other")
    assert run_cli(args, model_env(fake_model), repo).returncode == 0
    first, second, other = (r.headers["x-session-affinity"] for r in fake_model.requests)
    assert first == second != other
    assert fake_model.requests[1].json["messages"][0] == fake_model.requests[0].json["messages"][0]


def test_dry_run_calls_no_model_and_needs_no_credentials(repo: Path, fake_model: FakeModel) -> None:
    done = run_cli(["review", "--repo", str(repo), "--base", "main", "--dry-run", "--format", "json"], {}, repo)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert [s["name"] for s in plan["sections"]] == ["system", "guidance", "context files", "diff",
                                                     "more context files", "diff, changed by the newest push",
                                                     "pull request", "notes"]
    assert plan["prompt_tokens_estimate"] == sum(s["tokens"] for s in plan["sections"])
    assert plan["estimated_cost_usd"] > 0
    assert fake_model.requests == []
    text = run_cli(["review", "--repo", str(repo), "--base", "main", "--dry-run"], {}, repo)
    assert "context files" in text.stdout and "estimated cost" in text.stdout


def test_missing_model_credentials_and_bad_refs_are_clear_errors(repo: Path) -> None:
    done = run_cli(["review", "--repo", str(repo), "--base", "main"], {"REVIEWBOT_DATA_DIR": str(repo / "d")}, repo)
    assert done.returncode == 2 and "CLOUDFLARE_API_TOKEN" in done.stderr and "Traceback" not in done.stderr
    assert not (repo / "d").exists()  # a review bound to fail wrote nothing
    done = run_cli(["review", "--repo", str(repo), "--base", "no-such-branch", "--dry-run"], {}, repo)
    assert done.returncode == 2 and "git merge-base failed" in done.stderr
