"""Issues themselves (not pull requests, not comments): create, get, edit, and list with GitHub's filters."""

from __future__ import annotations

from typing import Any

from tests.fakes.github_core import MAX_BODY, WEB_URL, ApiError, Call, Reply, invalid, not_found, now_iso, paginate
from tests.fakes.github_state import GitHubState


def _number(state: GitHubState, repo: str) -> int:
    """Issues and pull requests share one sequence of numbers per repository."""
    taken = [n for r, n in state.pulls if r == repo] + [n for r, n in state.issues if r == repo]
    return max(taken, default=0) + 1


def _text(body: dict[str, Any], name: str, required: bool) -> str | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str | int) or (required and not str(value).strip()):
        raise invalid(f'"{name}" wasn\'t supplied.')
    if name == "body" and len(str(value)) > MAX_BODY:
        raise ApiError(422, "Validation Failed", errors=[{"resource": "Issue", "code": "custom", "field": "body",
                                                          "message": "body is too long (maximum is 65536 characters)"}])
    return str(value)


def _issue(state: GitHubState, call: Call) -> dict[str, Any]:
    issue = state.issues.get((call.repo, call.int_param("issue_number")))
    if issue is None:
        raise not_found()
    return issue


def create(state: GitHubState, call: Call) -> Reply:
    body = call.json_object()
    title, text = _text(body, "title", True), _text(body, "body", False)
    number, issue_id, now = _number(state, call.repo), state.next_id(), now_iso()
    issue = {"id": issue_id, "node_id": f"I_fake{issue_id}", "number": number, "title": title, "body": text,
             "state": "open", "state_reason": None, "locked": False, "labels": [], "assignees": [], "comments": 0,
             "user": state.user(call.identity.login), "created_at": now, "updated_at": now, "closed_at": None,
             "url": state.api(f"/repos/{call.repo}/issues/{number}"),
             "repository_url": state.api(f"/repos/{call.repo}"),
             "labels_url": state.api(f"/repos/{call.repo}/issues/{number}/labels{{/name}}"),
             "comments_url": state.api(f"/repos/{call.repo}/issues/{number}/comments"),
             "events_url": state.api(f"/repos/{call.repo}/issues/{number}/events"),
             "html_url": f"{WEB_URL}/{call.repo}/issues/{number}", "author_association": "NONE"}
    state.issues[(call.repo, number)] = issue
    return Reply(201, issue)



def update(state: GitHubState, call: Call) -> Reply:
    issue, body = _issue(state, call), call.json_object()
    changes: dict[str, Any] = {}
    for name in ("title", "body"):
        if name in body:
            changes[name] = _text(body, name, name == "title")
    if "state" in body:
        if body["state"] not in ("open", "closed"):
            raise invalid(f"For 'properties/state', {body['state']!r} is not one of [\"open\", \"closed\"].")
        changes.update(state=body["state"], closed_at=now_iso() if body["state"] == "closed" else None,
                       state_reason="completed" if body["state"] == "closed" else "reopened")
    issue.update(changes, updated_at=now_iso())
    return Reply(json=issue)


def list_issues(state: GitHubState, call: Call) -> Reply:
    wanted_state = call.query.get("state", "open")
    creator = call.query.get("creator")
    found = [i for (repo, _), i in state.issues.items() if repo == call.repo
             and (wanted_state == "all" or i["state"] == wanted_state)
             and (creator is None or i["user"]["login"] == creator)]
    found.sort(key=lambda i: (i["created_at"], i["number"]), reverse=call.query.get("direction", "desc") == "desc")
    page, headers = paginate(call, found)
    return Reply(json=page, headers=headers)
