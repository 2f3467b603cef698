"""The Git Data API a fix commit is made with: blobs, trees on a base tree, commits, and refs (GET, PATCH, POST).

Commits keep their files in the state's `commits`, so a commit that becomes a pull request's head (PATCH of its
branch's ref) is a new revision of the pull request: the next review reads its diff and files. A ref update that is
not a fast-forward is refused with 422 as GitHub refuses it (`force` false), so a person's push in between wins.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from tests.fakes.diffs import git_blob_sha
from tests.fakes.github_core import WEB_URL, ApiError, Call, Reply, not_found, now_iso
from tests.fakes.github_state import GitHubState, content_sha

NOT_FAST_FORWARD = "Update is not a fast forward"


def _writable(state: GitHubState, call: Call) -> None:
    """Writes need the installation's `contents: write`, as on GitHub."""
    installation = state.installations.get(call.identity.installation_id or -1)
    if installation is not None and installation.permissions.get("contents") != "write":
        raise ApiError(403, "Resource not accessible by integration")


def tree_sha(commit_sha: str) -> str:
    """A commit's tree, as the trees endpoint names it (github_repos.get_tree)."""
    return content_sha("tree", commit_sha)


def tree_files(state: GitHubState, repo: str, sha: str) -> dict[str, str] | None:
    if (repo, sha) in state.git_trees:
        return dict(state.git_trees[(repo, sha)])
    return next((dict(files) for (r, commit), files in state.commits.items() if r == repo and tree_sha(commit) == sha),
                None)


def create_blob(state: GitHubState, call: Call) -> Reply:
    _writable(state, call)
    body = call.json_object()
    content, encoding = body.get("content"), body.get("encoding", "utf-8")
    if not isinstance(content, str):
        raise ApiError(422, "Invalid request.\n\n\"content\" wasn't supplied.")
    text = base64.b64decode(content).decode() if encoding == "base64" else content
    sha = git_blob_sha(text)
    state.blobs[(call.repo, sha)] = text
    return Reply(201, {"sha": sha, "url": state.api(f"/repos/{call.repo}/git/blobs/{sha}")})


def create_tree(state: GitHubState, call: Call) -> Reply:
    _writable(state, call)
    body = call.json_object()
    base = body.get("base_tree")
    files = tree_files(state, call.repo, base) if isinstance(base, str) else {}
    if files is None:
        raise ApiError(422, "Invalid tree info")
    for entry in body.get("tree") or []:
        path = entry.get("path")
        if entry.get("sha") is None and "content" not in entry:
            files.pop(path, None)  # a null sha deletes the path
        elif "content" in entry:
            files[path] = entry["content"]
        elif (call.repo, entry["sha"]) in state.blobs:
            files[path] = state.blobs[(call.repo, entry["sha"])]
        else:
            raise ApiError(422, "Invalid tree info")
        if path in files:  # the mode it is written with (one set per repository: enough for these tests)
            (state.executables.add if entry.get("mode") == "100755" else state.executables.discard)((call.repo, path))
    sha = content_sha("tree", json.dumps(sorted(files.items())))
    state.git_trees[(call.repo, sha)] = files
    entries = [{"path": p, "mode": "100755" if (call.repo, p) in state.executables else "100644", "type": "blob",
                "sha": git_blob_sha(c), "size": len(c.encode()),
                "url": state.api(f"/repos/{call.repo}/git/blobs/{git_blob_sha(c)}")} for p, c in sorted(files.items())]
    return Reply(201, {"sha": sha, "url": state.api(f"/repos/{call.repo}/git/trees/{sha}"), "tree": entries,
                       "truncated": False})


def _commit_json(state: GitHubState, repo: str, sha: str) -> dict[str, Any]:
    person = {"name": state.bot_login, "email": "bot@example.com", "date": now_iso()}
    return {"sha": sha, "node_id": f"C_fake{sha[:12]}", "url": state.api(f"/repos/{repo}/git/commits/{sha}"),
            "html_url": f"{WEB_URL}/{repo}/commit/{sha}", "author": person, "committer": person,
            "message": state.commit_messages.get((repo, sha), "Fake commit"),
            "tree": {"sha": tree_sha(sha), "url": state.api(f"/repos/{repo}/git/trees/{tree_sha(sha)}")},
            "parents": [{"sha": p, "url": state.api(f"/repos/{repo}/git/commits/{p}"),
                         "html_url": f"{WEB_URL}/{repo}/commit/{p}"} for p in state.parents.get((repo, sha), [])],
            "verification": {"verified": False, "reason": "unsigned", "signature": None, "payload": None,
                             "verified_at": None}}


def get_commit(state: GitHubState, call: Call) -> Reply:
    sha = call.params["sha"]
    if (call.repo, sha) not in state.commits:
        raise not_found()
    return Reply(json=_commit_json(state, call.repo, sha))


def create_commit(state: GitHubState, call: Call) -> Reply:
    _writable(state, call)
    body = call.json_object()
    files = tree_files(state, call.repo, str(body.get("tree")))
    parents = [str(p) for p in body.get("parents") or []]
    if files is None or not isinstance(body.get("message"), str) or any((call.repo, p) not in state.commits
                                                                        for p in parents):
        raise ApiError(422, "Invalid request.\n\nThe tree, message or parents are not valid.")
    sha = content_sha("git-commit", str(body["tree"]), *parents, body["message"])
    state.commits[(call.repo, sha)] = files
    state.parents[(call.repo, sha)] = parents
    state.commit_messages[(call.repo, sha)] = body["message"]
    state.git_trees[(call.repo, tree_sha(sha))] = files
    state.git_commits.append((call.repo, sha))
    return Reply(201, _commit_json(state, call.repo, sha))


def _ref_json(state: GitHubState, repo: str, ref: str, sha: str) -> dict[str, Any]:
    return {"ref": f"refs/{ref}", "node_id": f"REF_fake{sha[:8]}", "url": state.api(f"/repos/{repo}/git/refs/{ref}"),
            "object": {"type": "commit", "sha": sha, "url": state.api(f"/repos/{repo}/git/commits/{sha}")}}


def get_ref(state: GitHubState, call: Call) -> Reply:
    ref = call.params["ref"]
    sha = state.resolve_ref(call.repo, ref.removeprefix("heads/")) if ref.startswith("heads/") else None
    if sha is None:
        raise not_found()
    return Reply(json=_ref_json(state, call.repo, ref, sha))


def update_ref(state: GitHubState, call: Call) -> Reply:
    """A branch moved to a commit; the pull request whose head branch it is gets it as its new head."""
    _writable(state, call)
    body, ref = call.json_object(), call.params["ref"]
    branch, new = ref.removeprefix("heads/"), str(body.get("sha") or "")
    current = state.resolve_ref(call.repo, branch) if ref.startswith("heads/") else None
    if current is None:
        raise ApiError(422, "Reference does not exist")
    if (call.repo, new) not in state.commits:
        raise ApiError(422, "Object does not exist")
    if not body.get("force") and current not in state.parents.get((call.repo, new), []) and current != new:
        raise ApiError(422, NOT_FAST_FORWARD)
    state.move_branch(call.repo, branch, new)
    return Reply(json=_ref_json(state, call.repo, ref, new))


def create_ref(state: GitHubState, call: Call) -> Reply:
    _writable(state, call)
    body = call.json_object()
    ref, sha = str(body.get("ref") or ""), str(body.get("sha") or "")
    if not ref.startswith("refs/heads/") or (call.repo, sha) not in state.commits:
        raise ApiError(422, "Invalid request.\n\nThe ref or sha is not valid.")
    if (call.repo, ref.removeprefix("refs/heads/")) in state.branches:
        raise ApiError(422, "Reference already exists")
    state.branches[(call.repo, ref.removeprefix("refs/heads/"))] = sha
    return Reply(201, _ref_json(state, call.repo, ref.removeprefix("refs/"), sha))
