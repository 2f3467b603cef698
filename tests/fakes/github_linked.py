"""Issues, a pull request's commits and its closing issue references: what the review reads to know what a pull
request is for. Issues of repositories the installation does not include are refused as GitHub refuses them."""

from __future__ import annotations

from typing import Any

from tests.fakes.github_core import WEB_URL, Call, Reply, not_found, now_iso, paginate
from tests.fakes.github_state import GitHubState


def add_issue(state: GitHubState, repo: str, number: int, title: str, body: str, issue_state: str,
              author: str) -> dict[str, Any]:
    now = now_iso()
    issue = {"id": state.next_id(), "number": number, "title": title, "body": body, "state": issue_state,
             "user": state.user(author), "labels": [], "locked": False, "comments": 0, "created_at": now,
             "updated_at": now, "closed_at": None, "author_association": "MEMBER"}
    issue["node_id"] = f"I_fake{issue['id']}"
    state.issues[(repo, number)] = issue
    return issue


def _issue_json(state: GitHubState, repo: str, issue: dict[str, Any], kind: str = "issues") -> dict[str, Any]:
    number = issue["number"]
    return {**issue, "url": state.api(f"/repos/{repo}/issues/{number}"),
            "repository_url": state.api(f"/repos/{repo}"), "html_url": f"{WEB_URL}/{repo}/{kind}/{number}"}


def get_issue(state: GitHubState, call: Call) -> Reply:
    """An issue; a pull request's number answers too (GitHub's issues include pull requests), with `pull_request`."""
    number = call.int_param("number")
    if (call.repo, number) in state.issues:
        return Reply(json=_issue_json(state, call.repo, state.issues[(call.repo, number)]))
    pr = state.pulls.get((call.repo, number))
    if pr is None:
        raise not_found()
    issue = {"id": pr.id, "node_id": f"PR_fake{pr.id}", "number": number, "title": pr.title, "body": pr.body,
             "state": pr.state, "user": state.user(pr.author), "labels": [], "locked": False, "comments": 0,
             "created_at": pr.created_at, "updated_at": pr.updated_at, "closed_at": None,
             "author_association": "CONTRIBUTOR",
             "pull_request": {"url": state.api(f"/repos/{call.repo}/pulls/{number}"),
                              "html_url": f"{WEB_URL}/{call.repo}/pull/{number}"}}
    return Reply(json=_issue_json(state, call.repo, issue, "pull"))


def list_pull_commits(state: GitHubState, call: Call) -> Reply:
    """One commit per push, oldest first, with the message a test gave it."""
    pr = state.pull(call.repo, call.int_param("number"))
    commits = [_commit(state, call.repo, r.head_sha) for r in pr.revisions]
    page, headers = paginate(call, commits, cap=250)
    return Reply(json=page, headers=headers)


def _commit(state: GitHubState, repo: str, sha: str) -> dict[str, Any]:
    person = {"name": "Octo Cat", "email": "octocat@users.noreply.github.com", "date": now_iso()}
    return {"sha": sha, "node_id": f"C_fake{sha[:12]}", "url": state.api(f"/repos/{repo}/commits/{sha}"),
            "html_url": f"{WEB_URL}/{repo}/commit/{sha}",
            "commit": {"url": state.api(f"/repos/{repo}/git/commits/{sha}"), "author": person, "committer": person,
                       "message": state.commit_messages.get((repo, sha), "Fake commit"), "comment_count": 0},
            "parents": [{"sha": p, "url": state.api(f"/repos/{repo}/commits/{p}")}
                        for p in state.parents.get((repo, sha), [])]}


def closing_references(state: GitHubState, call: Call, variables: dict[str, Any]) -> Reply:
    """GraphQL `closingIssuesReferences`: the issues linked to close (by the test, as a person would by hand)."""
    repo = f"{variables.get('owner')}/{variables.get('name')}"
    number = int(variables.get("number") or 0)
    installation = state.installations.get(call.identity.installation_id or -1)
    if (repo, number) not in state.pulls or (installation is not None and repo not in installation.repos):
        message = f"Could not resolve to a Repository with the name '{repo}'."
        return Reply(json={"data": {"repository": None},
                           "errors": [{"type": "NOT_FOUND", "path": ["repository"], "message": message}]})
    nodes = [{"number": n, "repository": {"nameWithOwner": r}} for r, n in state.closing.get((repo, number), [])]
    return Reply(json={"data": {"repository": {"pullRequest": {"closingIssuesReferences": {"nodes": nodes}}}}})
