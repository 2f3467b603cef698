"""`reviewbot audit --format sarif|json|markdown` in the local mode: the SARIF report is the one the service
uploads (valid, fingerprinted, named after the branch and commit)."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from tests.fakes.model import FakeModel, answering
from tests.integration.test_audit import audit_env, by_chunk, make_tree
from tests.integration.test_cli_review import git, run_cli

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "specs" / "sarif" / "sarif-2.1.0.json").read_text())


def test_the_local_audit_writes_sarif_json_or_markdown(tmp_path: Path, fake_model: FakeModel) -> None:
    root = tmp_path / "project"
    root.mkdir()
    make_tree(root)
    git(root, "init", "-q", "-b", "trunk")
    (root / ".gitignore").write_text("node_modules/\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    fake_model.default = answering(by_chunk)
    env = audit_env(fake_model, tmp_path / "data")
    done = run_cli(["audit", "--repo", str(root), "--format", "sarif", "--chunk-tokens", "30"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert list(Draft202012Validator(SCHEMA).iter_errors(document)) == []
    run = document["runs"][0]
    assert run["automationDetails"]["id"] == "reviewbot/audit/trunk/all/"
    assert {r["ruleId"] for r in run["results"]} == {"reviewbot/cwe-89", "reviewbot/cwe-79"}
    sql = next(r for r in run["results"] if r["ruleId"] == "reviewbot/cwe-89")
    assert sql["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "app/db.py"
    assert len(sql["partialFingerprints"]["reviewbotCodeKey/v1"]) == 16

    report = tmp_path / "audit.json"  # the saved state answers again, in another format, without the model
    again = run_cli(["audit", "--repo", str(root), "--report", str(report)], env, tmp_path)
    assert again.returncode == 0 and json.loads(report.read_text())["findings"]
    markdown = run_cli(["audit", "--repo", str(root), "--format", "markdown"], env, tmp_path)
    assert markdown.stdout.startswith("# Security audit of")
