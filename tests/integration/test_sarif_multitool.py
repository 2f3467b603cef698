"""Every SARIF shape reviewbot writes passes Microsoft's SARIF Multitool with GitHub's ingestion rules
(`validate --rule-kind "Gh;Sarif"`) without an error. `.ci/sarif-multitool` installs the validator (CI does);
without it the test skips and says how to get it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.sarif_shapes import shapes

ROOT = Path(__file__).resolve().parents[2]
INSTALLED = ROOT / ".cache" / "sarif-multitool" / "package" / "Sarif.Multitool"


def _multitool() -> str:
    found = os.environ.get("REVIEWBOT_SARIF_MULTITOOL") or (str(INSTALLED) if INSTALLED.is_file() else None) \
        or shutil.which("Sarif.Multitool")
    if not found:
        pytest.skip("Microsoft's SARIF Multitool is not installed: run .ci/sarif-multitool (needs npm once; "
                    "CI does it in .ci/run)")
    return found


def _errors(log: dict[str, object]) -> dict[str, list[str]]:
    """file name → the validator's error-level results and notifications (its exit code is 0 even then)."""
    found: dict[str, list[str]] = {}
    for run in log["runs"]:  # type: ignore[attr-defined]
        for result in run.get("results") or []:
            if result.get("level") == "error":
                uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                text = result["message"].get("text") or " ".join(result["message"].get("arguments") or [])
                found.setdefault(uri.rsplit("/", 1)[-1], []).append(f"{result['ruleId']}: {text}")
        for invocation in run.get("invocations") or []:
            for note in [*(invocation.get("toolExecutionNotifications") or []),
                         *(invocation.get("toolConfigurationNotifications") or [])]:
                if note.get("level") == "error":
                    found.setdefault("(tool)", []).append(str(note.get("message")))
            if invocation.get("executionSuccessful") is False:
                found.setdefault("(tool)", []).append("the validator's run did not succeed")
    return found


@pytest.mark.timeout(600)  # a .NET program validating six files: about a minute on a busy 2-core machine
def test_every_sarif_shape_passes_the_sarif_multitool_with_githubs_rules(tmp_path: Path) -> None:
    tool = _multitool()
    files = []
    for name, sarif in shapes().items():
        path = tmp_path / f"{name}.sarif"
        path.write_text(sarif.text())
        files.append(str(path))
    # A control the validator must refuse, so a silent validator cannot pass this test: a rule without
    # fullDescription or help (GitHub's GH2012).
    control = json.loads(shapes()["findings"].text())
    for rule in control["runs"][0]["tool"]["driver"]["rules"]:
        del rule["fullDescription"], rule["help"]
    (tmp_path / "control.sarif").write_text(json.dumps(control))
    out = tmp_path / "validation.sarif"
    subprocess.run([tool, "validate", *files, str(tmp_path / "control.sarif"), "--rule-kind", "Gh;Sarif",
                    "--output", str(out), "--log", "ForceOverwrite"], check=True, capture_output=True,
                   timeout=600, env={**os.environ, "DOTNET_CLI_TELEMETRY_OPTOUT": "1"})
    errors = _errors(json.loads(out.read_text(encoding="utf-8-sig")))
    assert any("GH2012" in e for e in errors.pop("control.sarif", [])), "the validator did not catch the control"
    assert errors == {}
