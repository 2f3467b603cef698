"""action.yml and `reviewbot action`'s reading of the job's environment agree: every input reaches the command,
under the name it reads; nothing checks out the pull request's code; markers outlive the per-run token."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import yaml

from reviewbot.action.environment import INPUTS, OWN_INPUTS, from_environ, read_input
from reviewbot.action.outputs import StepOutputs
from reviewbot.settings import Settings

MANIFEST = Path(__file__).resolve().parents[2] / "action.yml"


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(MANIFEST.read_text())
    return data


def test_every_input_is_passed_to_the_command_under_a_name_it_reads() -> None:
    data = manifest()
    inputs = set(data["inputs"]) - {"python-version"}
    assert inputs == set(INPUTS) | set(OWN_INPUTS)
    [review] = [s for s in data["runs"]["steps"] if "reviewbot\" action" in str(s.get("run"))]
    for name in inputs:
        env_name = "INPUT_" + name.upper().replace("-", "_")
        assert review["env"][env_name] == f"${{{{ inputs.{name} }}}}"
        assert read_input({env_name: " value "}, name) == "value"
        assert read_input({f"INPUT_{name.upper()}": "v"}, name) == "v"  # GitHub's own naming, hyphens kept
    assert data["inputs"]["github-token"]["default"] == "${{ github.token }}"


def test_only_the_actions_own_checkout_is_installed_and_nothing_else_is_checked_out() -> None:
    steps = manifest()["runs"]["steps"]
    assert data_uses(steps) == ["actions/setup-python@v5", "actions/cache@v4"]
    [install] = [s for s in steps if "pip install" in str(s.get("run"))]
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}" and '"$ACTION_PATH"' in install["run"]
    assert "$ACTION_PATH[" not in install["run"]  # no extra: no web server, queue or embedded Redis


def test_the_jobs_own_python_and_path_are_left_alone() -> None:
    """setup-python would put its Python first on PATH for every later step of the job; here it only hands its
    path to the private venv, and no step writes the job's PATH or environment."""
    steps = manifest()["runs"]["steps"]
    [python] = [s for s in steps if s.get("uses", "").startswith("actions/setup-python")]
    assert python["with"]["update-environment"] is False
    assert all("GITHUB_PATH" not in str(s.get("run")) and "GITHUB_ENV" not in str(s.get("run")) for s in steps)
    [install] = [s for s in steps if "pip install" in str(s.get("run"))]
    assert install["env"]["PYTHON"] == f"${{{{ steps.{python['id']}.outputs.python-path }}}}"


def test_every_output_the_command_writes_is_declared_and_the_budget_default_is_the_services() -> None:
    data = manifest()
    written = {name for name, _ in StepOutputs("reviewed").pairs()}
    assert set(data["outputs"]) == written
    assert all(o["value"] == f"${{{{ steps.run.outputs.{name} }}}}" for name, o in data["outputs"].items())
    default = Settings.load({}, env_file=None).review_token_budget
    assert int(data["inputs"]["review-token-budget"]["default"]) == default


def data_uses(steps: list[dict[str, Any]]) -> list[str]:
    return [s["uses"] for s in steps if "uses" in s]


def job_env(tmp_path: Path, token: str, **extra: str) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "opened"}))
    return {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "a/b",
            "INPUT_GITHUB-TOKEN": token, "INPUT_API-TOKEN": "model-key", "RUNNER_TEMP": str(tmp_path), **extra}


def test_markers_are_signed_with_a_key_that_outlives_the_runs_token(tmp_path: Path) -> None:
    first = from_environ(job_env(tmp_path, "ghs_run1")).settings
    second = from_environ(job_env(tmp_path, "ghs_run2")).settings
    assert first.marker_key() == second.marker_key()  # the next run believes this run's markers
    other = from_environ(job_env(tmp_path, "ghs_run1", **{"INPUT_API-TOKEN": "another-key"})).settings
    assert other.marker_key() != first.marker_key()
    assert first.data_dir == tmp_path / "reviewbot"


def test_the_workspace_env_file_is_never_read(tmp_path: Path, monkeypatch: Any) -> None:
    (tmp_path / ".env").write_text("REVIEWBOT_MODEL_BASE_URL=https://attacker.example/v1\n")
    monkeypatch.chdir(tmp_path)  # the pull request's files could be here if a workflow checked them out
    assert from_environ(job_env(tmp_path, "ghs_x")).settings.model_base_url is None


def cache_key(tmp_path: Path, pyproject: str, python: str) -> str:
    """The key the action's `deps` step computes, run as the runner runs it (bash, the step's env)."""
    [step] = [s for s in manifest()["runs"]["steps"] if s.get("id") == "deps"]
    action = tmp_path / "action"
    action.mkdir(exist_ok=True)
    (action / "pyproject.toml").write_text(pyproject)
    out = tmp_path / "output"
    out.write_text("")
    env = {"PATH": "/usr/bin:/bin", "ACTION_PATH": str(action), "PYTHON_VERSION": python, "RUNNER_OS": "Linux",
           "RUNNER_ARCH": "X64", "RUNNER_TEMP": str(tmp_path), "GITHUB_OUTPUT": str(out)}
    subprocess.run(["bash", "-e", "-c", step["run"]], env=env, check=True)
    return dict(line.split("=", 1) for line in out.read_text().splitlines())["key"]


def test_the_dependency_cache_is_renewed_when_requirements_or_python_change(tmp_path: Path) -> None:
    key = cache_key(tmp_path, "version = '1.0.0'\n", "3.11.9")
    assert key == cache_key(tmp_path, "version = '1.0.0'\n", "3.11.9")  # the next run restores it
    assert key != cache_key(tmp_path, "version = '1.1.0'\n", "3.11.9")  # a release, or new requirements
    assert key != cache_key(tmp_path, "version = '1.0.0'\n", "3.11.10")  # the venv links to its Python
