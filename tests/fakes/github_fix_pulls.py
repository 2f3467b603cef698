"""A fix pull request (POST pulls, from a branch of the same repository) and another App's check suite completed on
its commit, with the `check_suite` webhook GitHub would deliver for it (built from the published example)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.diffs import git_diff
from tests.fakes.github_core import WEB_URL, ApiError, Call, Reply, now_iso
from tests.fakes.github_repo_issues import _number
from tests.fakes.github_repos import pull_json
from tests.fakes.github_state import GitHubState, PullRequest

PUBLISHED = Path(__file__).parents[1] / "fixtures" / "webhooks" / "published" / "check_suite.jsonl"
CI_APP = {"id": 15368, "slug": "github-actions", "name": "GitHub Actions", "node_id": "MDM6QXBwMTUzNjg="}


def create_pull(state: GitHubState, call: Call) -> Reply:
    """A pull request from `head` (a branch of this repository) into `base`; 422 as GitHub says it when either
    branch is missing or an open pull request already has this head and base."""
    body = call.json_object()
    head, base, title = str(body.get("head") or ""), str(body.get("base") or ""), body.get("title")
    head_sha, base_sha = state.branches.get((call.repo, head)), state.resolve_ref(call.repo, base)
    if not isinstance(title, str) or not title or head_sha is None or base_sha is None:
        raise ApiError(422, "Validation Failed")
    if any(p.repo == call.repo and p.head_ref == head and p.base_ref == base and p.state == "open"
           for p in state.pulls.values()):
        raise ApiError(422, f"A pull request already exists for {call.repo.split('/')[0]}:{head}.")
    now = now_iso()
    pr = PullRequest(repo=call.repo, number=_number(state, call.repo), id=state.next_id(), title=title,
                     body=str(body.get("body") or ""), draft=bool(body.get("draft")), author=state.bot_login,
                     base_ref=base, head_ref=head, head_repo=call.repo, base_sha=base_sha, created_at=now,
                     updated_at=now)
    pr.push(head_sha, git_diff(state.commits[(call.repo, base_sha)], state.commits[(call.repo, head_sha)]))
    state.pulls[(call.repo, pr.number)] = pr
    return Reply(201, pull_json(state, pr))


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
