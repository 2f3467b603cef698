"""Where a finished audit's findings go: the audit record (read by `reviewbot audit status` and the dashboard), and
GitHub code scanning once the SARIF writer lands (the remaining step, marked below)."""

from __future__ import annotations

import hashlib
from typing import Any

RECORD_ONLY = "the audit record (`reviewbot audit status` and the dashboard)"


def category(branch: str, paths: list[str]) -> str:
    """A stable code-scanning category per branch and path set: alerts keep their identity across audits, and an
    upload closes what the previous analysis of the same category reported and this one no longer does."""
    scope = hashlib.sha256("\x1f".join(sorted(paths)).encode()).hexdigest()[:12] if paths else "all"
    return f"reviewbot-audit/{branch}/{scope}"


def publish(record: dict[str, Any], findings: list[dict[str, Any]]) -> str:
    """Every finding of the audit, carried-forward ones included, is the complete picture for its category;
    returns where it went, for the reply."""
    record["findings"] = findings
    record["category"] = category(record["branch"], record["paths"])
    # REMAINING STEP (issue 23, point 7; the `sarif` helper's branch): once `reviewbot.audit.sarif` is on main,
    # build the document with `build_sarif(...)` from these findings and `record["category"]`, upload it with
    # `port.upload_sarif(repo, commit_sha, ref, sarif_gz_b64, tool_name)`, poll `port.sarif_status(repo, sarif_id)`
    # and fall back to the tracking issue where code scanning is unavailable. Until then the record is the result.
    return RECORD_ONLY
