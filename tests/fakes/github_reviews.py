"""Pull request reviews: creation validated against the served diff, exactly as strictly as GitHub."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from tests.fakes.diffs import FileDiff, Side
from tests.fakes.github_auth import token_identity
from tests.fakes.github_core import MAX_BODY, WEB_URL, ApiError, Call, Reply, not_found, now_iso, paginate
from tests.fakes.github_state import GitHubState, PullRequest, Revision

REVIEW_DOCS = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"
_STATES = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}
_SIDES = ("LEFT", "RIGHT")


def _unprocessable(error: str) -> ApiError:
    return ApiError(422, "Unprocessable Entity", errors=[error], documentation_url=REVIEW_DOCS)


def _check_body(body: Any, *, required: bool) -> str:
    if body is not None and not isinstance(body, str):
        raise _unprocessable("Body must be a string")
    if required and not (body or "").strip():
        raise _unprocessable("Body can't be blank")
    if body is not None and len(body) > MAX_BODY:
        raise _unprocessable(f"Body is too long (maximum is {MAX_BODY} characters)")
    return body or ""


@dataclass
class _Anchor:
    """Where one validated comment lands in the diff."""

    file: FileDiff
    subject_type: str
    side: Side | None = None
    line: int | None = None
    start_side: Side | None = None
    start_line: int | None = None
    where: tuple[int, int] | None = None  # (hunk index, line index) of the commented (last) line


def _int_or_none(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _unprocessable(f"{name} must be an integer")
    return value


def _side(value: Any, default: Side) -> Side:
    if value is None:
        return default
    if value not in _SIDES:
        raise _unprocessable(f"Side must be one of {', '.join(_SIDES)}")
    return cast(Side, value)


def _anchor(revision: Revision, comment: Any) -> _Anchor:
    if not isinstance(comment, dict) or not isinstance(comment.get("path"), str):
        raise _unprocessable("Path can't be blank")
    _check_body(comment.get("body"), required=True)
    file = revision.file(comment["path"])
    if file is None:
        raise _unprocessable("Path could not be resolved")
    if comment.get("subject_type") == "file":
        return _Anchor(file, "file")
    position = _int_or_none(comment.get("position"), "Position")
    line = _int_or_none(comment.get("line"), "Line")
    if line is None and position is not None:
        # The legacy `position` counts diff lines below the file's first @@ header.
        where = file.positions.get(position)
        if where is None:
            raise _unprocessable("Position could not be resolved")
        target = file.line_at(*where)
        side: Side = "RIGHT" if target.new_line is not None else "LEFT"
        resolved = target.new_line if target.new_line is not None else target.old_line
        return _Anchor(file, "line", side, resolved, where=where)
    if line is None:
        raise _unprocessable("Line could not be resolved")
    side = _side(comment.get("side"), "RIGHT")
    where = file.locate(side, line)
    if where is None:
        raise _unprocessable("Line could not be resolved")
    start_line = _int_or_none(comment.get("start_line"), "Start line")
    if start_line is None:
        return _Anchor(file, "line", side, line, where=where)
    start_side = _side(comment.get("start_side"), side)
    start_where = file.locate(start_side, start_line)
    if start_where is None:
        raise _unprocessable("Start line could not be resolved")
    if start_where[0] != where[0]:
        raise _unprocessable("Pull request review thread start line must be part of the same hunk as the line.")
    if start_where[1] >= where[1]:
        raise _unprocessable("Pull request review thread start line must precede the end line.")
    return _Anchor(file, "line", side, line, start_side, start_line, where)


def _comment_json(
    state: GitHubState, pr: PullRequest, review: dict[str, Any], comment: dict[str, Any], anchor: _Anchor
) -> dict[str, Any]:
    comment_id = state.next_id()
    position = anchor.file.line_at(*anchor.where).position if anchor.where else None
    now = now_iso()
    return {
        "url": state.api(f"/repos/{pr.repo}/pulls/comments/{comment_id}"),
        "id": comment_id,
        "node_id": f"PRRC_fake{comment_id}",
        "pull_request_review_id": review["id"],
        "diff_hunk": anchor.file.diff_hunk(*anchor.where) if anchor.where else "",
        "path": anchor.file.path,
        "position": position,
        "original_position": position,
        "commit_id": review["commit_id"],
        "original_commit_id": review["commit_id"],
        "user": review["user"],
        "body": comment["body"],
        "created_at": now,
        "updated_at": now,
        "html_url": f"{WEB_URL}/{pr.repo}/pull/{pr.number}#discussion_r{comment_id}",
        "pull_request_url": state.api(f"/repos/{pr.repo}/pulls/{pr.number}"),
        "author_association": "NONE",
        "start_line": anchor.start_line,
        "original_start_line": anchor.start_line,
        "start_side": anchor.start_side,
        "line": anchor.line,
        "original_line": anchor.line,
        "side": anchor.side,
        "subject_type": anchor.subject_type,
        # `in_reply_to_id` is absent, not null, on a comment that starts a thread (an integer in the schema).
    }


def create_review(state: GitHubState, call: Call) -> Reply:
    pr = state.pull(call.repo, call.int_param("number"))
    payload = call.json_object()
    event = payload.get("event")
    if event is not None and event not in _STATES:
        raise _unprocessable("Variable $event of type PullRequestReviewEvent was provided invalid value")
    body = _check_body(payload.get("body"), required=event in ("COMMENT", "REQUEST_CHANGES"))
    commit_id = payload.get("commit_id") or pr.head_sha
    revision = pr.revision(commit_id) if isinstance(commit_id, str) else None
    if revision is None:
        raise _unprocessable("Commit id is not part of the pull request")
    comments = payload.get("comments") or []
    if not isinstance(comments, list):
        raise _unprocessable("Comments must be an array")
    # Validate every comment before storing anything: GitHub rejects the review as a whole.
    anchors = [_anchor(revision, comment) for comment in comments]
    login = call.identity.login
    key = (pr.repo, pr.number)
    if event is None and any(r["state"] == "PENDING" and r["user"]["login"] == login for r in state.review_json[key]):
        raise _unprocessable("User can only have one pending review per pull request")

    review_id = state.next_id()
    review: dict[str, Any] = {
        "id": review_id,
        "node_id": f"PRR_fake{review_id}",
        "user": state.user(login),
        "body": body,
        "state": _STATES[event] if event is not None else "PENDING",
        "html_url": f"{WEB_URL}/{pr.repo}/pull/{pr.number}#pullrequestreview-{review_id}",
        "pull_request_url": state.api(f"/repos/{pr.repo}/pulls/{pr.number}"),
        "author_association": "NONE",
        "commit_id": commit_id,
    }
    if event is not None:
        review["submitted_at"] = now_iso()
    state.review_json[key].append(review)
    state.reviews[key].append({**payload, "id": review_id})
    for comment, anchor in zip(comments, anchors, strict=True):
        state.review_comments[key].append(_comment_json(state, pr, review, comment, anchor))
    return Reply(json=review)


def list_reviews(state: GitHubState, call: Call) -> Reply:
    pr = state.pull(call.repo, call.int_param("number"))
    page, headers = paginate(call, state.review_json[(pr.repo, pr.number)])
    return Reply(json=page, headers=headers)


def list_review_comments(state: GitHubState, call: Call) -> Reply:
    pr = state.pull(call.repo, call.int_param("number"))
    page, headers = paginate(call, state.review_comments[(pr.repo, pr.number)])
    return Reply(json=page, headers=headers)


def list_comment_reactions(state: GitHubState, call: Call) -> Reply:
    """`GET /pulls/comments/{id}/reactions`: the reactions people left on a review comment."""
    comment_id = call.int_param("comment_id")
    if not any(c["id"] == comment_id for (repo, _), comments in state.review_comments.items()
               if repo == call.repo for c in comments):
        raise not_found()
    page, headers = paginate(call, state.reactions[comment_id])
    return Reply(json=page, headers=headers)


def reply_to_comment(state: GitHubState, call: Call) -> Reply:
    """`POST /pulls/{n}/comments/{id}/replies`: a reply joins the top-level comment's thread."""
    pr = state.pull(call.repo, call.int_param("number"))
    key = (pr.repo, pr.number)
    parent_id = call.int_param("comment_id")
    parent = next((c for c in state.review_comments[key] if c["id"] == parent_id), None)
    if parent is None:
        raise not_found()
    if parent.get("in_reply_to_id"):
        raise _unprocessable("Replies to replies are not supported")
    body = _check_body(call.json_object().get("body"), required=True)
    comment_id = state.next_id()
    reply = {**parent, "id": comment_id, "node_id": f"PRRC_fake{comment_id}", "body": body,
             "user": state.user(call.identity.login), "in_reply_to_id": parent_id, "created_at": now_iso(),
             "updated_at": now_iso(), "url": state.api(f"/repos/{pr.repo}/pulls/comments/{comment_id}")}
    state.review_comments[key].append(reply)
    return Reply(status=201, json=reply)


def add_reply(state: GitHubState, repo: str, number: int, parent_id: int, body: str, login: str) -> dict[str, Any]:
    """A person's reply in a review thread, stored as GitHub would store it (the test thread's side)."""
    key = (repo, number)
    parent = next((c for c in state.review_comments[key] if c["id"] == parent_id), None)
    if parent is None:
        raise not_found()
    comment_id = state.next_id()
    reply = {**parent, "id": comment_id, "node_id": f"PRRC_fake{comment_id}", "body": body,
             "user": state.user(login), "in_reply_to_id": parent_id, "created_at": now_iso(),
             "updated_at": now_iso(), "url": state.api(f"/repos/{repo}/pulls/comments/{comment_id}"),
             "author_association": "MEMBER"}
    state.review_comments[key].append(reply)
    return reply


def get_attachment(state: GitHubState, call: Call) -> Reply:
    """`https://github.com/user-attachments/assets/<id>`: an attachment, for a token that may read the repository.
    (GitHub redirects to signed storage; serving the bytes here keeps the fake to one host, unless a test sets
    where an asset redirects to.) A public asset is served to anyone; any other needs a valid token."""
    if call.params["asset_id"] not in state.public_attachments:
        token_identity(state, call.headers, None)  # 401 without a token or with a bad one, as before
    if (location := state.attachment_redirects.get(call.params["asset_id"])) is not None:
        return Reply(status=302, text=b"", media_type="text/html", headers={"location": location})
    found = state.attachments.get(call.params["asset_id"])
    if found is None:
        raise not_found()
    return Reply(text=found[1], media_type=found[0])
