"""Read-only repository endpoints: repository, pull request (JSON and diff), changed files, contents."""

from __future__ import annotations

import base64
import hashlib
import io
import tarfile
from typing import Any

from tests.fakes.diffs import FileDiff, git_blob_sha, git_diff
from tests.fakes.github_core import WEB_URL, ApiError, Call, Reply, not_found, paginate
from tests.fakes.github_git import tree_files
from tests.fakes.github_state import GitHubState, PullRequest, content_sha, stable_id

MAX_DIFF_FILES = 300
MAX_DIFF_LINES = 20_000
MAX_LISTED_FILES = 3000
MAX_PATCH_LINES = 3000
MAX_BASE64_BYTES = 1024 * 1024  # larger files come back with "encoding": "none" unless asked for raw
_DIFF_MEDIA = ("application/vnd.github.diff", "application/vnd.github.v3.diff")
_RAW_MEDIA = ("application/vnd.github.raw", "application/vnd.github.v3.raw")
_TEXT_MEDIA = "text/plain; charset=utf-8"
_FILES_DOCS = "https://docs.github.com/rest/pulls/pulls#list-pull-requests-files"
# GitHub's `permission` field only knows the classic levels; `role_name` keeps the fine-grained one.
_CLASSIC_PERMISSION = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read"}


def _association(state: GitHubState, login: str) -> str:
    permission = state.permissions.get(login, "read")
    return {"admin": "OWNER", "maintain": "MEMBER", "write": "COLLABORATOR"}.get(permission, "CONTRIBUTOR")


def _branch(state: GitHubState, repo: str, ref: str, sha: str) -> dict[str, Any]:
    return {
        "label": f"{repo.split('/')[0]}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": {**state.user(repo.split("/")[0]), "type": "Organization"},
        "repo": state.repo_json(repo),
    }


def pull_json(state: GitHubState, pr: PullRequest) -> dict[str, Any]:
    files = pr.current.files
    api = state.api(f"/repos/{pr.repo}/pulls/{pr.number}")
    html = f"{WEB_URL}/{pr.repo}/pull/{pr.number}"
    return {
        "url": api,
        "id": pr.id,
        "node_id": f"PR_fake{pr.id}",
        "html_url": html,
        "diff_url": f"{html}.diff",
        "patch_url": f"{html}.patch",
        "issue_url": state.api(f"/repos/{pr.repo}/issues/{pr.number}"),
        "number": pr.number,
        "state": pr.state,
        "locked": False,
        "title": pr.title,
        "user": state.user(pr.author),
        # GitHub sends null, not "", for a pull request without description.
        "body": pr.body or None,
        "labels": [{"id": stable_id(name), "name": name, "color": "ededed", "default": False} for name in pr.labels],
        "draft": pr.draft,
        "created_at": pr.created_at,
        "updated_at": pr.updated_at,
        "closed_at": None,
        "merged_at": None,
        "merge_commit_sha": None,
        "assignees": [],
        "requested_reviewers": [],
        "head": _branch(state, pr.head_repo, pr.head_ref, pr.head_sha),
        "base": _branch(state, pr.repo, pr.base_ref, pr.base_sha),
        "author_association": _association(state, pr.author),
        "merged": False,
        "mergeable": None,
        "comments": len(state.issue_comments[(pr.repo, pr.number)]),
        "review_comments": len(state.review_comments[(pr.repo, pr.number)]),
        "commits": len(pr.revisions),
        "additions": sum(f.additions for f in files),
        "deletions": sum(f.deletions for f in files),
        "changed_files": len(files),
        "maintainer_can_modify": False,
    }


def get_repo(state: GitHubState, call: Call) -> Reply:
    if not state.known_repo(call.repo):
        raise not_found()
    return Reply(json=state.repo_json(call.repo))


def _too_large(what: str, limit: int) -> ApiError:
    return ApiError(
        406,
        f"Sorry, the diff exceeded the maximum number of {what} ({limit}). Consider using "
        "'List pull requests files' API or locally cloning the repository instead.",
        errors=[{"resource": "PullRequest", "field": "diff", "code": "too_large"}],
        documentation_url=_FILES_DOCS,
    )


def get_pull(state: GitHubState, call: Call) -> Reply:
    pr = state.pull(call.repo, call.int_param("number"))
    if not call.accepts(*_DIFF_MEDIA):
        return Reply(json=pull_json(state, pr))
    revision = pr.current
    if len(revision.files) > MAX_DIFF_FILES:
        raise _too_large("files", MAX_DIFF_FILES)
    if revision.diff_text.count("\n") > MAX_DIFF_LINES:
        raise _too_large("lines", MAX_DIFF_LINES)
    return Reply(text=revision.diff_text, media_type=_TEXT_MEDIA)


def compare(state: GitHubState, call: Call) -> Reply:
    """`GET /compare/{base}...{head}`: the diff between two commits (diff media type) or a summary."""
    base_ref, _, head_ref = call.params["spec"].partition("...")
    base, head = state.resolve_ref(call.repo, base_ref), state.resolve_ref(call.repo, head_ref)
    if base is None or head is None:
        raise not_found()
    text = git_diff(state.commits[(call.repo, base)], state.commits[(call.repo, head)])
    if call.accepts(*_DIFF_MEDIA):
        return Reply(text=text, media_type=_TEXT_MEDIA)
    return Reply(json={"status": "ahead", "base_commit": {"sha": base}, "merge_base_commit": {"sha": base},
                       "files": [], "url": state.api(f"/repos/{call.repo}/compare/{base}...{head}")})


def _file_json(state: GitHubState, pr: PullRequest, diff: FileDiff) -> dict[str, Any]:
    sha_ref = pr.base_sha if diff.status == "removed" else pr.head_sha
    content = state.commits.get((pr.repo, sha_ref), {}).get(diff.path)
    item: dict[str, Any] = {
        "sha": git_blob_sha(content) if content is not None else content_sha(diff.path, sha_ref),
        "filename": diff.path,
        "status": diff.status,
        "additions": diff.additions,
        "deletions": diff.deletions,
        "changes": diff.additions + diff.deletions,
        "blob_url": f"{WEB_URL}/{pr.repo}/blob/{sha_ref}/{diff.path}",
        "raw_url": f"{WEB_URL}/{pr.repo}/raw/{sha_ref}/{diff.path}",
        "contents_url": state.api(f"/repos/{pr.repo}/contents/{diff.path}?ref={sha_ref}"),
    }
    # GitHub leaves `patch` out for huge files (and for changes without hunks, like pure renames).
    if diff.patch and diff.patch.count("\n") < MAX_PATCH_LINES:
        item["patch"] = diff.patch
    if diff.status == "renamed":
        item["previous_filename"] = diff.old_path
    return item


def list_pull_files(state: GitHubState, call: Call) -> Reply:
    pr = state.pull(call.repo, call.int_param("number"))
    files = pr.current.files[:MAX_LISTED_FILES]
    page, headers = paginate(call, files, cap=MAX_LISTED_FILES)
    return Reply(json=[_file_json(state, pr, f) for f in page], headers=headers)


def _base64_lines(data: bytes) -> str:
    # GitHub (Ruby's Base64.encode64) wraps at 60 characters and ends every line with a newline.
    encoded = base64.b64encode(data).decode()
    return "".join(encoded[i : i + 60] + "\n" for i in range(0, len(encoded), 60))


def _content_entry(state: GitHubState, repo: str, sha: str, path: str, content: str | None) -> dict[str, Any]:
    data = (content or "").encode()
    blob = git_blob_sha(content) if content is not None else content_sha(path, sha)
    entry: dict[str, Any] = {
        "type": "file" if content is not None else "dir",
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "sha": blob,
        "size": len(data) if content is not None else 0,
        "url": state.api(f"/repos/{repo}/contents/{path}?ref={sha}"),
        "html_url": f"{WEB_URL}/{repo}/blob/{sha}/{path}",
        "git_url": state.api(f"/repos/{repo}/git/blobs/{blob}"),
        "download_url": f"https://raw.githubusercontent.com/{repo}/{sha}/{path}",
    }
    if content is not None and len(data) > MAX_BASE64_BYTES:
        entry.update(encoding="none", content="")
    elif content is not None:
        entry.update(encoding="base64", content=_base64_lines(data))
    return entry


def get_contents(state: GitHubState, call: Call) -> Reply:
    path = call.params["path"].strip("/")
    sha = state.resolve_ref(call.repo, call.query.get("ref"))
    files = state.commits.get((call.repo, sha), {}) if sha else {}
    if path in files:
        if len(files[path].encode()) > state.max_contents_bytes:  # no media type serves these
            raise ApiError(403, "This API returns blobs up to 1 MB in size. The requested blob is too large to fetch"
                                " via the API, but you can use the Git Data API to request blobs up to 100 MB in size.",
                           errors=[{"resource": "Blob", "field": "data", "code": "too_large"}])
        if call.accepts(*_RAW_MEDIA):
            return Reply(text=files[path].encode(), media_type=_TEXT_MEDIA)
        return Reply(json=_content_entry(state, call.repo, sha or "", path, files[path]))
    # A directory: list its direct children, files and sub-directories alike.
    prefix = f"{path}/" if path else ""
    children = sorted({prefix + p[len(prefix) :].split("/")[0] for p in files if p.startswith(prefix)})
    if not children:
        raise not_found()
    # A listing carries no file contents (GitHub's "Content Directory" items have no `encoding`).
    entries = [{k: v for k, v in _content_entry(state, call.repo, sha or "", child, files.get(child)).items()
                if k not in ("encoding", "content")} for child in children]
    return Reply(json=entries)


def get_tree(state: GitHubState, call: Call) -> Reply:
    """`git/trees/{sha}`: top-level entries, or every file and directory with `recursive`."""
    sha = state.resolve_ref(call.repo, call.params["ref"])
    files = state.commits.get((call.repo, sha), {}) if sha is not None else tree_files(state, call.repo,
                                                                                          call.params["ref"])
    if files is None:
        raise not_found()
    if sha is None:  # a tree's own sha (the Git Data API's): named as it was asked for
        sha = call.params["ref"]
    recursive = call.query.get("recursive") not in (None, "", "0", "false")
    dirs = {"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)}
    entries = [{"path": p, "mode": "100755" if (call.repo, p) in state.executables else "100644", "type": "blob",
                "sha": git_blob_sha(c), "size": len(c.encode())} for p, c in files.items()]
    entries += [{"path": d, "mode": "040000", "type": "tree", "sha": content_sha("tree", sha, d)} for d in dirs]
    if not recursive:
        entries = [e for e in entries if "/" not in e["path"]]
    tree = sorted(entries, key=lambda e: e["path"])
    return Reply(json={"sha": content_sha("tree", sha), "url": state.api(f"/repos/{call.repo}/git/trees/{sha}"),
                       "tree": tree, "truncated": False})


def get_commit(state: GitHubState, call: Call) -> Reply:
    sha = state.resolve_ref(call.repo, call.params["ref"])
    if sha is None:
        raise ApiError(422, f"No commit found for SHA: {call.params['ref']}")
    return Reply(
        json={
            "sha": sha,
            "node_id": f"C_fake{sha[:12]}",
            "url": state.api(f"/repos/{call.repo}/commits/{sha}"),
            "html_url": f"{WEB_URL}/{call.repo}/commit/{sha}",
            "commit": {
                "message": "Fake commit",
                "tree": {"sha": content_sha("tree", sha)},
                "url": state.api(f"/repos/{call.repo}/git/commits/{sha}"),
            },
            "parents": [{"sha": p, "url": state.api(f"/repos/{call.repo}/commits/{p}")}
                        for p in state.parents.get((call.repo, sha), [])],
        }
    )


def get_permission(state: GitHubState, call: Call) -> Reply:
    login = call.params["user"]
    role = state.permissions.get(login, "read")
    # `role_name` may be an organisation's custom role; `permission` is always the base level it grants.
    base = state.custom_roles.get(role, role)
    # The collaborator's `permissions` flags are the one place GitHub tells maintain from write.
    levels = ["read", "triage", "write", "maintain", "admin"]
    rank = levels.index(base) if base in levels else -1
    flags = {"pull": rank >= 0, "triage": rank >= 1, "push": rank >= 2, "maintain": rank >= 3, "admin": rank >= 4}
    user = {**state.user(login), "permissions": flags, "role_name": role}
    return Reply(json={"permission": _CLASSIC_PERMISSION.get(base, "none"), "role_name": role, "user": user})


# ----- repository archives (context engine): GitHub redirects to codeload, which needs no Authorization ---------


def codeload_token(state: GitHubState, repo: str, sha: str) -> str:
    """The short-lived token GitHub puts in the redirect; here derived, so the fake keeps no extra state."""
    return hashlib.sha256(f"{state.app_slug}:{repo}@{sha}".encode()).hexdigest()[:24]


def get_tarball(state: GitHubState, call: Call) -> Reply:
    sha = state.resolve_ref(call.repo, call.params["ref"])
    if sha is None or (call.repo, sha) not in state.commits:
        raise not_found()
    owner, name = call.repo.split("/", 1)
    location = (f"{state.base_url}/_codeload/{owner}/{name}/legacy.tar.gz/{sha}"
                f"?token={codeload_token(state, call.repo, sha)}")
    return Reply(302, headers={"location": location})


def get_codeload(state: GitHubState, call: Call) -> Reply:
    repo, sha = call.repo, call.params["sha"]
    if call.query.get("token") != codeload_token(state, repo, sha) or (repo, sha) not in state.commits:
        raise not_found()
    return Reply(text=archive(state, repo, sha), media_type="application/x-gzip",
                 headers={"content-disposition": f"attachment; filename={repo.replace('/', '-')}-{sha[:7]}.tar.gz"})


def archive(state: GitHubState, repo: str, sha: str) -> bytes:
    """The commit's tarball, built once per commit as GitHub serves archives from its cache (several workers fetch
    the same commit; a benchmark builds them before it starts the clock)."""
    files = state.commits[(repo, sha)]
    built = state.tarballs.get((repo, sha))
    if built is None or built[0] != files:
        built = state.tarballs[(repo, sha)] = (dict(files), tarball(repo, sha, files))
    return built[1]


def tarball(repo: str, sha: str, files: dict[str, str]) -> bytes:
    """A gzip tarball shaped like GitHub's: a pax global header with the commit, one `owner-repo-sha7/` folder."""
    top = f"{repo.replace('/', '-')}-{sha[:7]}"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT, pax_headers={"comment": sha}) as tar:
        directories = sorted({"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)})
        for directory in ["", *directories]:
            info = tarfile.TarInfo(f"{top}/{directory}".rstrip("/") + "/")
            info.type, info.mode = tarfile.DIRTYPE, 0o775
            tar.addfile(info)
        for path in sorted(files):
            data = files[path].encode()
            info = tarfile.TarInfo(f"{top}/{path}")
            if files[path].startswith(SYMLINK):  # git stores symbolic links; GitHub's tarball keeps them
                info.type, info.linkname = tarfile.SYMTYPE, files[path].removeprefix(SYMLINK)
                tar.addfile(info)
                continue
            info.size, info.mode = len(data), 0o664
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


SYMLINK = "\0symlink:"


def symlink(target: str) -> str:
    """A file content that the tarball turns into a symbolic link to `target` (a repository may hold them)."""
    return SYMLINK + target
