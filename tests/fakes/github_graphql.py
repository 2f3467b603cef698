"""The two GraphQL operations a review bot needs: list a pull request's review threads, resolve one.

Each document is checked against GitHub's published schema (github_contract); the operation is recognised
by its root field, and arguments come from `variables` (what real clients send). Answers have GitHub's shape,
errors included (HTTP 200 + `errors`).
"""

from __future__ import annotations

from typing import Any

from tests.fakes.github_contract import check_graphql
from tests.fakes.github_core import ApiError, Call, Reply
from tests.fakes.github_linked import closing_references
from tests.fakes.github_state import GitHubState, PullRequest

_PAGE = 100


def _error(kind: str, message: str, path: str) -> Reply:
    return Reply(json={"data": {path: None}, "errors": [{"type": kind, "path": [path], "message": message}]})


def _threads(state: GitHubState, pr: PullRequest) -> list[dict[str, Any]]:
    """Comments grouped the way GitHub threads them: a top-level comment and its replies."""
    threads: dict[int, dict[str, Any]] = {}
    for comment in state.review_comments[(pr.repo, pr.number)]:
        root = comment.get("in_reply_to_id") or comment["id"]
        if root not in threads:
            outdated = _outdated(state, pr, comment)
            thread_id = f"PRRT_fake{root}"
            resolver = state.resolvers.get(thread_id) if thread_id in state.resolved_threads else None
            threads[root] = {"id": thread_id, "isResolved": thread_id in state.resolved_threads,
                             "resolvedBy": {"login": resolver} if resolver else None,
                             "isOutdated": outdated, "path": comment["path"],
                             "line": None if outdated else comment.get("line"), "comments": {"nodes": []}}
        threads[root]["comments"]["nodes"].append(
            # BigInt: a string, since ids outgrew 32 bits (the deprecated Int `databaseId` cannot carry them).
            {"fullDatabaseId": str(comment["id"]), "author": {"login": comment["user"]["login"]},
             "body": comment["body"]})
    return list(threads.values())


def _line(state: GitHubState, repo: str, sha: str, path: str, line: int) -> str | None:
    lines = (state.commits.get((repo, sha)) or {}).get(path, "").split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else None


def _outdated(state: GitHubState, pr: PullRequest, comment: dict[str, Any]) -> bool:
    """A later push changed the commented line or moved it out of the diff (GitHub then reports no line)."""
    line, side = comment.get("line"), comment.get("side") or "RIGHT"
    if comment["commit_id"] == pr.head_sha or line is None:
        return False
    file = pr.current.file(comment["path"])
    if file is None or file.locate(side, line) is None:
        return True
    sha = comment["commit_id"] if side == "RIGHT" else pr.base_sha
    now = pr.head_sha if side == "RIGHT" else pr.base_sha
    return _line(state, pr.repo, sha, comment["path"], line) != _line(state, pr.repo, now, comment["path"], line)


def _list_threads(state: GitHubState, call: Call, variables: dict[str, Any]) -> Reply:
    repo = f"{variables.get('owner')}/{variables.get('name')}"
    pr = state.pulls.get((repo, int(variables.get("number") or 0)))
    installation = state.installations.get(call.identity.installation_id or -1)
    if pr is None or (installation is not None and repo not in installation.repos):
        return _error("NOT_FOUND", f"Could not resolve to a Repository with the name '{repo}'.", "repository")
    threads = _threads(state, pr)
    after = variables.get("after")
    start = int(str(after).removeprefix("cursor:")) if after else 0
    page = threads[start : start + _PAGE]
    end = start + len(page)
    info = {"hasNextPage": end < len(threads), "endCursor": f"cursor:{end}" if page else None}
    connection = {"nodes": page, "pageInfo": info}
    return Reply(json={"data": {"repository": {"pullRequest": {"reviewThreads": connection}}}})


def _resolve(state: GitHubState, call: Call, variables: dict[str, Any]) -> Reply:
    thread_id = str(variables.get("threadId") or "")
    installation = state.installations.get(call.identity.installation_id or -1)
    for pr in state.pulls.values():
        if any(t["id"] == thread_id for t in _threads(state, pr)):
            if installation is not None and pr.repo not in installation.repos:
                return _error("FORBIDDEN", "Resource not accessible by integration", "resolveReviewThread")
            state.resolved_threads.add(thread_id)
            state.resolvers[thread_id] = call.identity.login
            return Reply(json={"data": {"resolveReviewThread": {"thread": {"id": thread_id, "isResolved": True}}}})
    return _error("NOT_FOUND", f"Could not resolve to a node with the global id of '{thread_id}'",
                  "resolveReviewThread")


def graphql(state: GitHubState, call: Call) -> Reply:
    body = call.json_object()
    query, variables = body.get("query"), body.get("variables") or {}
    if not isinstance(query, str) or not isinstance(variables, dict):
        raise ApiError(400, "Problems parsing JSON")
    state.violations += check_graphql(query, variables)
    if "closingIssuesReferences" in query:
        return closing_references(state, call, variables)
    if "resolveReviewThread" in query:
        return _resolve(state, call, variables)
    if "reviewThreads" in query:
        return _list_threads(state, call, variables)
    known = "reviewThreads, resolveReviewThread and closingIssuesReferences"
    return Reply(json={"errors": [{"message": f"the fake GitHub only knows {known}"}]})
