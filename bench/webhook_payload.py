"""A `pull_request` webhook payload shaped and sized like GitHub's (~25 KB: three repository objects, users,
links and a description), for load tests of the intake."""

from __future__ import annotations

from typing import Any

API = "https://api.github.com"
REPO_URLS = ["forks", "keys", "collaborators", "teams", "hooks", "issue_events", "events", "assignees", "branches",
             "tags", "blobs", "git_tags", "git_refs", "trees", "statuses", "languages", "stargazers", "contributors",
             "subscribers", "subscription", "commits", "git_commits", "comments", "issue_comment", "contents",
             "compare", "merges", "archive", "downloads", "issues", "pulls", "milestones", "notifications", "labels",
             "releases", "deployments"]
USER_URLS = ["followers", "following", "gists", "starred", "subscriptions", "organizations", "repos", "events",
             "received_events"]


def user(login: str, uid: int, kind: str = "User") -> dict[str, Any]:
    return {"login": login, "id": uid, "node_id": f"MDQ6VXNlcj{uid}", "avatar_url":
            f"https://avatars.githubusercontent.com/u/{uid}?v=4", "gravatar_id": "", "url": f"{API}/users/{login}",
            "html_url": f"https://github.com/{login}", "type": kind, "site_admin": False,
            **{f"{u}_url": f"{API}/users/{login}/{u}" for u in USER_URLS}}


def repository(full_name: str, rid: int) -> dict[str, Any]:
    owner = full_name.split("/")[0]
    return {"id": rid, "node_id": f"MDEwOlJlcG9zaXRvcnk{rid}", "name": full_name.split("/")[1],
            "full_name": full_name, "private": True, "owner": user(owner, 9919, "Organization"),
            "html_url": f"https://github.com/{full_name}", "description": "Widgets for everyone", "fork": False,
            "url": f"{API}/repos/{full_name}", **{f"{u}_url": f"{API}/repos/{full_name}/{u}{{/id}}" for u in REPO_URLS},
            "created_at": "2020-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
            "pushed_at": "2026-01-01T00:00:00Z", "git_url": f"git://github.com/{full_name}.git",
            "ssh_url": f"git@github.com:{full_name}.git", "clone_url": f"https://github.com/{full_name}.git",
            "size": 10240, "stargazers_count": 12, "watchers_count": 12, "language": "Python", "has_issues": True,
            "forks_count": 3, "open_issues_count": 5, "default_branch": "main", "visibility": "private",
            "topics": ["widgets", "python"], "allow_squash_merge": True, "allow_merge_commit": True}


def pull_request_event(number: int, head_sha: str, action: str = "opened", repo: str = "acme/widgets",
                       installation: int = 31337) -> dict[str, Any]:
    repo_json = repository(repo, 1296269)
    author = user("octocat", 583231)
    url = f"{API}/repos/{repo}/pulls/{number}"
    pull = {"url": url, "id": 1_000_000 + number, "node_id": f"PR_kwDO{number}", "number": number,
            "html_url": f"https://github.com/{repo}/pull/{number}", "diff_url": f"https://github.com/{repo}/pull/"
            f"{number}.diff", "state": "open", "locked": False, "title": f"Improve widget handling #{number}",
            "user": author, "body": "This change improves how widgets are handled. " * 40, "draft": False,
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "labels": [],
            "head": {"label": "acme:feature", "ref": f"feature-{number}", "sha": head_sha, "user": author,
                     "repo": repo_json},
            "base": {"label": "acme:main", "ref": "main", "sha": "b" * 40, "user": author, "repo": repo_json},
            "_links": {k: {"href": f"{url}/{k}"} for k in ("self", "html", "issue", "comments", "review_comments",
                                                          "review_comment", "commits", "statuses")},
            "author_association": "MEMBER", "merged": False, "commits": 3, "additions": 120, "deletions": 40,
            "changed_files": 7, "requested_reviewers": [], "assignees": []}
    return {"action": action, "number": number, "pull_request": pull, "repository": repo_json, "sender": author,
            "installation": {"id": installation, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMzEzMzc="},
            **({"before": "c" * 40, "after": head_sha} if action == "synchronize" else {})}
