"""Another App's (CI's) check suite completed on a fix's commit, with the `check_suite` webhook GitHub would deliver
for it (built from the published example). Pull requests are opened by github_pulls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.github_core import WEB_URL, now_iso
from tests.fakes.github_state import GitHubState

PUBLISHED = Path(__file__).parents[1] / "fixtures" / "webhooks" / "published" / "check_suite.jsonl"
CI_APP = {"id": 15368, "slug": "github-actions", "name": "GitHub Actions", "node_id": "MDM6QXBwMTUzNjg="}


def complete_suite(state: GitHubState, repo: str, sha: str, runs: list[tuple[str, str]],
                   installation_id: int) -> dict[str, Any]:
    """Another App's (CI's) check runs on `sha`, completed with `(name, conclusion)` each, in one suite; returns the
    `check_suite` `completed` webhook payload for it."""
    suite_id = state.next_id()
    for name, conclusion in runs:
        run_id = state.next_id()
        state.check_runs[run_id] = {
            "id": run_id, "node_id": f"CR_fake{run_id}", "name": name, "head_sha": sha, "external_id": "",
            "url": state.api(f"/repos/{repo}/check-runs/{run_id}"), "html_url": f"{WEB_URL}/{repo}/runs/{run_id}",
            "details_url": None, "status": "completed", "conclusion": conclusion, "started_at": now_iso(),
            "completed_at": now_iso(), "output": {"title": None, "summary": None, "text": None},
            "check_suite": {"id": suite_id}, "app": dict(CI_APP), "repo": repo, "annotations": [], "actions": [],
            "history": []}
    example: dict[str, Any] = json.loads(PUBLISHED.read_text().splitlines()[0])
    failed = any(c not in ("success", "neutral", "skipped") for _, c in runs)
    example["check_suite"] |= {"id": suite_id, "head_sha": sha, "after": sha, "status": "completed",
                               "conclusion": "failure" if failed else "success", "app": dict(CI_APP),
                               "pull_requests": [], "latest_check_runs_count": len(runs)}
    example["repository"] |= {"full_name": repo, "name": repo.split("/")[1]}
    example["installation"] = {"id": installation_id, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ=="}
    return example
