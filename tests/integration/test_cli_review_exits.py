"""`reviewbot review` as a newcomer meets it: the Action's exit codes, nothing to review, an unreachable model,
uncommitted changes and `--worktree`, and what the dry run prints."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.fakes.model import FakeModel, answering, findings_json
from tests.integration.test_cli_review import git, model_env, new_repo, run_cli

BASE_DB = "def find(db, name):\n    return db.execute('SELECT * FROM users WHERE name = ?', (name,))\n"
HEAD_DB = "def find(db, name):\n    return db.execute(f\"SELECT * FROM users WHERE name = '{name}'\")\n"


def injection() -> dict[str, object]:
    return {"path": "app/db.py", "line": 2, "start_line": None, "side": "RIGHT", "severity": "critical",
            "category": "security", "cwe": "CWE-89", "title": "SQL injection through `name`",
            "body": "The name is formatted into the query.", "suggestion": None, "confidence": 0.95}


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A branch that turns a parameterised query into an f-string, with `blocking_severity: major` on main."""
    root = new_repo(tmp_path / "shop")
    (root / "app").mkdir()
    (root / ".github").mkdir()
    (root / ".github" / "reviewbot.yml").write_text("blocking_severity: major\nignore: ['docs/**']\n")
    (root / "app" / "db.py").write_text(BASE_DB)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "feature")
    (root / "app" / "db.py").write_text(HEAD_DB)
    git(root, "commit", "-qam", "Inline the name")
    return root


def review(shop: Path, fake_model: FakeModel, *extra: str) -> tuple[int, str, str]:
    fake_model.default = answering(findings_json([injection()], "An injection."))
    done = run_cli(["review", "--repo", str(shop), "--base", "main", *extra], model_env(fake_model), shop)
    return done.returncode, done.stdout, done.stderr


def test_a_finding_at_the_blocking_severity_exits_1_as_the_action_does(shop: Path, fake_model: FakeModel) -> None:
    code, out, err = review(shop, fake_model)
    assert code == 1, err
    assert "SQL injection" in out and "blocking severity (major)" in err
    code, out, err = review(shop, fake_model, "--format", "json")
    result = json.loads(out)
    assert code == 1 and result["blocking"] == {"severity": "major", "reached": True}
    assert result["findings"][0]["cwe"] == "CWE-89"
    assert review(shop, fake_model, "--fail-on", "never")[0] == 0
    fake_model.default = answering(findings_json([{**injection(), "severity": "minor"}]))
    done = run_cli(["review", "--repo", str(shop), "--base", "main", "--fail-on", "Minor"], model_env(fake_model),
                   shop)
    assert done.returncode == 1, done.stderr


def test_a_failed_review_exits_2_and_an_unreachable_model_names_its_url(shop: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"REVIEWBOT_MODEL_BASE_URL": f"http://127.0.0.1:{port}/v1", "REVIEWBOT_MODEL_RETRIES": "1"}
    done = run_cli(["review", "--repo", str(shop), "--base", "main"], env, shop)
    assert done.returncode == 2, done.stderr
    assert f"cannot reach the model at http://127.0.0.1:{port}/v1/chat/completions" in done.stderr
    assert "REVIEWBOT_MODEL_BASE_URL" in done.stderr and "Traceback" not in done.stderr


def test_nothing_to_review_is_said_and_costs_nothing(shop: Path, fake_model: FakeModel) -> None:
    done = run_cli(["review", "--repo", str(shop), "--base", "feature"], model_env(fake_model), shop)
    assert done.returncode == 0 and "nothing to review: the range has no changes" in done.stderr
    (shop / "docs").mkdir()
    (shop / "docs" / "guide.md").write_text("# Guide\n")
    git(shop, "add", "-A")
    git(shop, "commit", "-qm", "Docs only")
    for extra in ((), ("--dry-run", "--format", "json")):
        done = run_cli(["review", "--repo", str(shop), "--base", "HEAD~1", *extra], model_env(fake_model), shop)
        assert done.returncode == 0 and "docs/guide.md: ignored by the repository's configuration" in done.stderr
        assert "no prompt was planned and no model was asked" in done.stderr
        if not extra:
            assert done.stdout == ""
        else:  # a CI step reading the JSON gets the review's keys, and why nothing was asked
            answer = json.loads(done.stdout)
            assert "docs/guide.md" in answer["nothing_to_review"] and answer["findings"] == []
            assert answer["estimated_cost_usd"] == 0 and answer["blocking"]["reached"] is False
            assert len(answer["head"]["sha"]) == 40 and answer["dry_run"] is True
    assert fake_model.requests == []


def test_uncommitted_changes_are_named_and_worktree_reviews_them(shop: Path, fake_model: FakeModel) -> None:
    (shop / "app" / "db.py").write_text(HEAD_DB + "\n\ndef drop(db):\n    db.execute('DROP TABLE users')\n")
    (shop / "app" / "new.py").write_text("def new():\n    return 1\n")
    done = run_cli(["review", "--repo", str(shop), "--base", "HEAD", "--dry-run"], {}, shop)
    assert "1 changed file(s) and 1 untracked file(s) not committed" in done.stderr and "--worktree" in done.stderr
    assert "nothing to review" in done.stderr
    done = run_cli(["review", "--repo", str(shop), "--base", "HEAD", "--worktree", "--dry-run", "--format", "json"],
                   {}, shop)
    plan = json.loads(done.stdout)
    assert sorted(plan["coverage"]["reviewed"]) == ["app/db.py", "app/new.py"]
    head = git_out(shop, "rev-parse", "HEAD")
    assert plan["head"] == {"ref": "HEAD", "sha": head, "worktree": True} and plan["base"]["sha"] == head
    assert git_out(shop, "status", "--porcelain") == "M app/db.py\n?? app/new.py"  # the index is untouched


def git_out(repo: Path, *args: str) -> str:
    import subprocess

    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def test_the_dry_run_prices_a_custom_model_lists_once_and_speaks_markdown(shop: Path) -> None:
    env = {"REVIEWBOT_MODEL": "my-model", "REVIEWBOT_PRICES": '{"my-model": [100, 10, 100]}'}
    text = run_cli(["review", "--repo", str(shop), "--base", "main", "--dry-run"], env, shop).stdout
    assert "estimated cost: $0." in text and "my-model" in text
    assert text.count("Related but left out") <= 1
    plan = json.loads(run_cli(["review", "--repo", str(shop), "--base", "main", "--dry-run", "--format", "json"],
                              env, shop).stdout)
    assert plan["estimated_cost_usd"] > 0 and plan["dry_run"] is True and plan["findings"] == []
    assert plan["base"]["sha"] == git_out(shop, "merge-base", "main", "feature")
    assert plan["head"]["sha"] == git_out(shop, "rev-parse", "feature")
    markdown = run_cli(["review", "--repo", str(shop), "--base", "main", "--dry-run", "--format", "markdown"], env,
                       shop).stdout
    assert markdown.startswith("## Prompt plan") and "| Section | Tokens | Items |" in markdown
    assert "- `app/db.py`" in markdown
    unpriced = run_cli(["review", "--repo", str(shop), "--base", "main", "--dry-run"], {"REVIEWBOT_MODEL": "other"},
                       shop).stdout
    assert "estimated cost: unknown (no price for other: set REVIEWBOT_PRICES)" in unpriced


def test_a_review_and_a_dry_run_print_the_same_json_keys(shop: Path, fake_model: FakeModel) -> None:
    dry = json.loads(run_cli(["review", "--repo", str(shop), "--base", "main", "--dry-run", "--format", "json"], {},
                             shop).stdout)
    code, out, _ = review(shop, fake_model, "--format", "json", "--fail-on", "never")
    assert code == 0 and set(json.loads(out)) == set(dry)
    assert json.loads(out)["head"] == dry["head"] and json.loads(out)["usage"]["prompt_tokens"] > 0


def test_the_data_dir_is_not_the_working_directory(shop: Path, tmp_path: Path) -> None:
    done = run_cli(["review", "--repo", ".", "--base", "main", "--dry-run"], {"XDG_DATA_HOME": str(tmp_path / "x")},
                   shop)
    assert done.returncode == 0, done.stderr
    assert not (shop / ".reviewbot").exists() and (tmp_path / "x" / "reviewbot").is_dir()
    assert git_out(shop, "status", "--porcelain") == ""
