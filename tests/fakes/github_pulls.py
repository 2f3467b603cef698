"""Pull requests the App opens itself (rule proposals): list by head branch and state, and create from a branch."""

from __future__ import annotations

from tests.fakes.diffs import git_diff
from tests.fakes.github_core import ApiError, Call, Reply, invalid, now_iso, paginate
from tests.fakes.github_repo_issues import _number, _text
from tests.fakes.github_repos import pull_json
from tests.fakes.github_state import GitHubState, PullRequest

# What only a single pull request's JSON has (GitHub lists the "simple" form).
_NOT_LISTED = frozenset({"comments", "commits", "maintainer_can_modify", "deletions", "review_comments", "additions",
                         "mergeable", "merged", "changed_files", "mergeable_state", "merged_by", "rebaseable"})


def list_pulls(state: GitHubState, call: Call) -> Reply:
    """`GET pulls?state=open|closed|all&head=OWNER:BRANCH`, newest first, as GitHub lists them."""
    wanted, head = call.query.get("state", "open"), call.query.get("head")
    found = [pr for (repo, _), pr in state.pulls.items() if repo == call.repo
             and (wanted == "all" or pr.state == wanted)
             and (head is None or f"{pr.head_repo.split('/')[0]}:{pr.head_ref}" == head)]
    found.sort(key=lambda pr: pr.number, reverse=True)
    page, headers = paginate(call, [{k: v for k, v in pull_json(state, pr).items() if k not in _NOT_LISTED}
                                    for pr in found])
    return Reply(json=page, headers=headers)


def create_pull(state: GitHubState, call: Call) -> Reply:
    """`POST pulls`: needs `pull_requests: write`; the head branch must exist and differ from the base; one open
    pull request per head and base, as on GitHub."""
    installation = state.installations.get(call.identity.installation_id or -1)
    if installation is not None and installation.permissions.get("pull_requests") != "write":
        raise ApiError(403, "Resource not accessible by integration")
    body = call.json_object()
    title, text = _text(body, "title", True), _text(body, "body", False)
    head, base = str(body.get("head") or ""), str(body.get("base") or "")
    head_sha, base_sha = state.branches.get((call.repo, head)), state.resolve_ref(call.repo, base)
    if head_sha is None or base_sha is None or (call.repo, base_sha) not in state.commits:
        raise invalid("head or base is not a branch of the repository.")
    if any(pr.repo == call.repo and pr.head_ref == head and pr.base_ref == base and pr.state == "open"
           for pr in state.pulls.values()):
        raise ApiError(422, "Validation Failed", errors=[{"resource": "PullRequest", "code": "custom",
                                                          "message": f"A pull request already exists for {head}."}])
    now = now_iso()
    pr = PullRequest(repo=call.repo, number=_number(state, call.repo), id=state.next_id(), title=str(title),
                     body=text or "", draft=bool(body.get("draft")), author=state.bot_login, base_ref=base,
                     head_ref=head, head_repo=call.repo, base_sha=base_sha, created_at=now, updated_at=now)
    pr.push(head_sha, git_diff(state.commits[(call.repo, base_sha)], state.commits[(call.repo, head_sha)]))
    state.pulls[(call.repo, pr.number)] = pr
    return Reply(201, pull_json(state, pr))
