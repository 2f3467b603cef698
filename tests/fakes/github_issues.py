"""Issue (conversation) comments on pull requests, and reactions to them."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.github_core import MAX_BODY, WEB_URL, ApiError, Call, Reply, invalid, not_found, now_iso, paginate
from tests.fakes.github_state import GitHubState

REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


def _check_body(body: Any) -> str:
    if not isinstance(body, str) or not body.strip():
        raise invalid('"body" wasn\'t supplied.')
    if len(body) > MAX_BODY:
        raise ApiError(
            422,
            "Validation Failed",
            errors=[
                {
                    "resource": "IssueComment",
                    "code": "custom",
                    "field": "body",
                    "message": f"Body is too long (maximum is {MAX_BODY} characters)",
                }
            ],
        )
    return body


def add_comment(state: GitHubState, repo: str, number: int, body: str, login: str) -> dict[str, Any]:
    """Store a comment as GitHub would render it; also used by the fake's setup helpers."""
    plain_issue = (repo, number) in state.issues
    if not plain_issue:
        state.pull(repo, number)
    comment_id = state.next_id()
    now = now_iso()
    comment = {
        "id": comment_id,
        "node_id": f"IC_fake{comment_id}",
        "url": state.api(f"/repos/{repo}/issues/comments/{comment_id}"),
        "html_url": f"{WEB_URL}/{repo}/{'issues' if plain_issue else 'pull'}/{number}#issuecomment-{comment_id}",
        "issue_url": state.api(f"/repos/{repo}/issues/{number}"),
        "body": body,
        "user": state.user(login),
        "created_at": now,
        "updated_at": now,
        "author_association": "NONE" if login.endswith("[bot]") else "CONTRIBUTOR",
    }
    state.issue_comments[(repo, number)].append(comment)
    return comment


def _find(state: GitHubState, repo: str, comment_id: int) -> dict[str, Any]:
    for (comment_repo, _), comments in state.issue_comments.items():
        for comment in comments:
            if comment["id"] == comment_id and comment_repo == repo:
                return comment
    raise not_found()


def create_comment(state: GitHubState, call: Call) -> Reply:
    body = _check_body(call.json_object().get("body"))
    return Reply(201, add_comment(state, call.repo, call.int_param("number"), body, call.identity.login))


def list_comments(state: GitHubState, call: Call) -> Reply:
    number = call.int_param("number")
    if (call.repo, number) not in state.issues:
        state.pull(call.repo, number)
    page, headers = paginate(call, state.issue_comments[(call.repo, number)])
    return Reply(json=page, headers=headers)


def get_comment(state: GitHubState, call: Call) -> Reply:
    return Reply(json=_find(state, call.repo, call.int_param("comment_id")))


def update_comment(state: GitHubState, call: Call) -> Reply:
    comment = _find(state, call.repo, call.int_param("comment_id"))
    if comment["user"]["login"] != call.identity.login:
        raise ApiError(403, "Resource not accessible by integration")
    comment.update(body=_check_body(call.json_object().get("body")), updated_at=now_iso())
    return Reply(json=comment)


def create_reaction(state: GitHubState, call: Call) -> Reply:
    comment_id = call.int_param("comment_id")
    _find(state, call.repo, comment_id)
    content = call.json_object().get("content")
    if content not in REACTIONS:
        raise invalid(f"For 'properties/content', {json.dumps(content)} is not one of {json.dumps(REACTIONS)}.")
    login = call.identity.login
    for reaction in state.reactions[comment_id]:
        # The same person reacting the same way again is idempotent: 200 with the existing reaction.
        if reaction["content"] == content and reaction["user"]["login"] == login:
            return Reply(json=reaction)
    reaction_id = state.next_id()
    reaction = {
        "id": reaction_id,
        "node_id": f"REA_fake{reaction_id}",
        "user": state.user(login),
        "content": content,
        "created_at": now_iso(),
    }
    state.reactions[comment_id].append(reaction)
    return Reply(201, reaction)


def list_reactions(state: GitHubState, call: Call) -> Reply:
    comment_id = call.int_param("comment_id")
    _find(state, call.repo, comment_id)
    page, headers = paginate(call, state.reactions[comment_id])
    return Reply(json=page, headers=headers)
