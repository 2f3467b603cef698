"""`mode: audit`: a security audit of the job's checked-out workspace, written as SARIF for code scanning's upload."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from reviewbot.action.environment import ActionEnv
from reviewbot.action.outputs import StepOutputs, append_summary, write_outputs
from reviewbot.errors import ConfigError, ReviewbotError

log = logging.getLogger(__name__)
FAILED = 2
DEFAULT_SARIF = "reviewbot.sarif"
NO_WORKSPACE = ("mode: audit reads the repository the job checked out: add `actions/checkout` (of the default branch, "
                "on `schedule`, `workflow_dispatch` or `push`) before this step")


def audit_step(env: ActionEnv) -> int:
    """The local `reviewbot audit --format sarif` over GITHUB_WORKSPACE; the report goes to `sarif-path` (relative
    to the workspace), for `github/codeql-action/upload-sarif`. Exit 0 when the report is written, findings or not
    (code scanning decides what blocks), 2 when the audit could not be done."""
    from reviewbot.audit.run import audit_command

    try:
        workspace = _workspace(env)
        sarif = workspace / (env.inputs.get("sarif-path") or DEFAULT_SARIF)
        sarif.parent.mkdir(parents=True, exist_ok=True)
        status = audit_command(env.settings, workspace, "", sarif, fmt="sarif")
        if status != 0:  # some chunks failed; the runner's state does not outlive the job, so no resume
            raise ConfigError("the audit could not finish (some chunks failed; see the log above)")
        counts = _by_severity(sarif)
    except ReviewbotError as exc:
        print(f"::error title=reviewbot::{' '.join(str(exc).split())}", file=sys.stderr)
        write_outputs(env.output_path, StepOutputs("failed"))
        append_summary(env.summary_path, f"**The audit failed.** {exc}")
        return FAILED
    write_outputs(env.output_path, StepOutputs("audited", findings=counts, sarif=str(sarif)))
    found = ", ".join(f"{n} {severity}" for severity, n in counts.items()) or "no findings"
    print(f"reviewbot: audit written to {sarif} ({found})", flush=True)
    append_summary(env.summary_path, f"Security audit of `{env.repo}`: {found}. The SARIF report is for code "
                                     "scanning (`github/codeql-action/upload-sarif`).")
    return 0


def _workspace(env: ActionEnv) -> Path:
    if env.workspace is None or not env.workspace.is_dir() or not any(env.workspace.iterdir()):
        raise ConfigError(NO_WORKSPACE)
    return env.workspace


def _by_severity(sarif: Path) -> dict[str, int]:
    """reviewbot's severity of each result, as the report records it in the result's properties."""
    try:
        report = json.loads(sarif.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"the SARIF report could not be read back: {exc}") from None
    counts: dict[str, int] = {}
    for run in report.get("runs", []):
        for result in run.get("results", []):
            severity = str((result.get("properties") or {}).get("severity") or "minor")
            counts[severity] = counts.get(severity, 0) + 1
    return counts
