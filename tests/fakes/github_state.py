"""Everything the fake GitHub remembers, with the lock that guards it.

State is mutated on the server thread (by requests) and on the test thread (by setup helpers), and read
by tests; a single re-entrant lock around each request and each helper keeps both sides consistent.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from tests.fakes.diffs import FileDiff, git_diff, parse_git_diff
from tests.fakes.github_core import WEB_URL, not_found, now_iso, user_json

DEFAULT_PERMISSIONS = {
    "checks": "write",
    "contents": "read",
    "issues": "write",
    "metadata": "read",
    "pull_requests": "write",
    "security_events": "write",
}


def stable_id(text: str) -> int:
    """A deterministic numeric id for things tests name by string (users, repositories)."""
    return int(hashlib.sha1(text.encode()).hexdigest()[:7], 16)


def content_sha(*parts: str) -> str:
    return hashlib.sha1("\0".join(parts).encode()).hexdigest()


class RecordedCall(NamedTuple):
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # lowercased names; the Authorization value is redacted to its scheme


@dataclass
class Installation:
    id: int
    repos: set[str]
    permissions: dict[str, str]
    account: str


@dataclass
class IssuedToken:
    installation_id: int
    expires_at: float  # epoch seconds
    revoked: bool = False


@dataclass
class Fault:
    method: str
    pattern: re.Pattern[str]
    status: int
    body: dict[str, Any] | str | None
    headers: dict[str, str]
    remaining: int
    after: bool = False  # run the real endpoint first, then answer with the fault (a write that went through)
    every: int = 1  # answer only every n-th matching request (a flaky gateway), the others normally
    seen: int = 0


@dataclass
class Delay:
    """The real answer, computed on arrival and sent `seconds` later: a slow network or a slow replica."""
    method: str
    pattern: re.Pattern[str]
    seconds: float
    remaining: int


@dataclass
class RateWindow:
    used: int
    reset_at: int


@dataclass
class Revision:
    """One pushed head of a pull request, with the diff GitHub would show for it."""

    head_sha: str
    diff_text: str
    files: list[FileDiff]

    def file(self, path: str) -> FileDiff | None:
        return next((f for f in self.files if f.path == path), None)


@dataclass
class PullRequest:
    repo: str
    number: int
    id: int
    title: str
    body: str
    draft: bool
    author: str
    base_ref: str
    head_ref: str
    head_repo: str
    base_sha: str
    created_at: str
    updated_at: str
    # Every head ever pushed, oldest first: reviews may target an older commit_id, like on GitHub.
    revisions: list[Revision] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    state: str = "open"

    @property
    def current(self) -> Revision:
        return self.revisions[-1]

    @property
    def head_sha(self) -> str:
        return self.current.head_sha

    def revision(self, sha: str) -> Revision | None:
        return next((r for r in self.revisions if r.head_sha == sha), None)

    def push(self, head_sha: str, diff_text: str) -> None:
        self.revisions.append(Revision(head_sha, diff_text, parse_git_diff(diff_text)))


class GitHubState:
    """The data behind the fake; endpoint modules read and write it while holding `lock`."""

    client_id = "Iv1.fake"

    def __init__(self, app_id: int, public_key_pem: bytes, app_slug: str) -> None:
        self.app_id = app_id
        self.public_key_pem = public_key_pem
        self.app_slug = app_slug
        # Replaced by the fixture once the server is listening; absolute URLs in responses use it.
        self.base_url = "http://127.0.0.1"
        self.lock = threading.RLock()
        # Ids are never reused across resets, so an id leaking from an earlier test cannot match anything.
        self._ids = itertools.count(1001)
        self.reset()

    def reset(self) -> None:
        """Forget everything: pull requests, installations, tokens, reviews, faults, recorded requests..."""
        with self.lock:
            self.installations: dict[int, Installation] = {}
            # (repo, sha) -> parent shas, for commits whose parents a test cares about (merge commits).
            self.parents: dict[tuple[str, str], list[str]] = {}
            self.tokens: dict[str, IssuedToken] = {}
            self.personal_tokens: set[str] = set()
            self.personal_login = "octocat"
            self.permissions: dict[str, str] = {}
            self.custom_roles: dict[str, str] = {}  # an organisation's custom repository role -> its base role
            self.pulls: dict[tuple[str, int], PullRequest] = {}
            self.branches: dict[tuple[str, str], str] = {}  # (repo, branch) -> commit sha (set_branch)
            # repo -> its `pushed_at` (epoch s): GitHub's second precision, so each push moves it a second on
            self.pushed: dict[str, int] = {}
            # (repo, sha) -> files of that commit, served by the contents endpoint.
            self.commits: dict[tuple[str, str], dict[str, str]] = {}
            self.tarballs: dict[tuple[str, str], tuple[dict[str, str], bytes]] = {}  # (repo, sha) -> (files, archive)
            self.reviews: defaultdict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
            # Reviews as GitHub renders them (what the list endpoint returns), per pull request.
            self.review_json: defaultdict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
            self.review_comments: defaultdict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
            self.check_runs: dict[int, dict[str, Any]] = {}
            self.issue_comments: defaultdict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
            self.reactions: defaultdict[int, list[dict[str, Any]]] = defaultdict(list)
            self.requests: list[RecordedCall] = []
            self.request_times: list[float] = []  # epoch seconds of arrival, parallel to `requests`
            self.faults: list[Fault] = []
            self.delays: list[Delay] = []
            # Where a request or a reply broke GitHub's published description (tests/fakes/github_contract.py).
            self.violations: list[str] = []
            self.rate_windows: dict[str, RateWindow] = {}
            self.rate_limit = 5000
            self.max_contents_bytes = 100 * 1024 * 1024  # the contents API serves no file above (tests lower it)
            # The App's webhook deliveries (newest last), redelivery requests and manifest codes.
            self.deliveries: list[dict[str, Any]] = []
            self.redelivered: list[int] = []
            self.redelivery_status: tuple[int, str] = (202, "OK")
            self.manifest_codes: dict[str, bytes] = {}
            self.manifest_secret_missing = False  # the conversion answers `"webhook_secret": null`
            self.hook_config: dict[str, Any] = {"content_type": "json", "insecure_ssl": "0",
                                                "url": "https://reviewbot.example.com/webhooks/github"}
            self.resolved_threads: set[str] = set()
            self.resolvers: dict[str, str] = {}  # thread id -> who resolved it (GraphQL `resolvedBy`)
            self.suites: dict[tuple[str, str], int] = {}  # (repo, head SHA) -> the App's check suite there
            # Files attached to descriptions and comments: asset id -> (content type, bytes).
            self.attachments: dict[str, tuple[str, bytes]] = {}
            # Linked issues (github_linked): issues, closing references linked by hand, commit messages.
            # plain issues (not pull requests): readable, and they take comments like a pull request
            self.issues: dict[tuple[str, int], dict[str, Any]] = {}
            # repo -> public | private | internal (unset: private). Any token reads a public repository with GET;
            # another repository outside its installation answers 404, as GitHub hides what a token may not see.
            self.visibility: dict[str, str] = {}
            self.closing: dict[tuple[str, int], list[tuple[str, int]]] = {}
            self.commit_messages: dict[tuple[str, str], str] = {}
            self.attachment_redirects: dict[str, str] = {}  # asset id -> where GitHub sends it (signed storage)
            self.public_attachments: set[str] = set()  # asset ids anyone may read (uploaded in a public repository)
            # Code scanning (tests/fakes/github_code_scanning.py): SARIF uploads by id, alerts per repository,
            # repositories without Code Security (403), polls an upload stays pending; issues opened through the API.
            self.sarif_uploads: dict[str, dict[str, Any]] = {}
            self.code_scanning_alerts: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
            self.code_scanning_off: set[str] = set()
            self.sarif_pending_polls = 1
            # Disclosure (tests/fakes/github_advisories.py): public repositories (every other one is private), and
            # repository security advisories per repository.
            self.advisories: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
            # The Git Data API (tests/fakes/github_git.py): blobs and trees by (repo, sha), and the commits made
            # through it, in order (a fix commit's files are in `commits` like any other).
            self.blobs: dict[tuple[str, str], str] = {}
            self.git_trees: dict[tuple[str, str], dict[str, str]] = {}
            self.git_commits: list[tuple[str, str]] = []
            # (repo, path) of executable files (mode 100755 in trees; a tree written through the API sets or clears it)
            self.executables: set[tuple[str, str]] = set()

    def suite_id(self, repo: str, head_sha: str) -> int:
        """GitHub makes one check suite per App and commit: every check run of ours on that commit is in it."""
        return self.suites.setdefault((repo, head_sha), 500_000 + len(self.suites))

    def next_id(self) -> int:
        return next(self._ids)

    def api(self, path: str) -> str:
        return f"{self.base_url}{path}"

    @property
    def bot_login(self) -> str:
        return f"{self.app_slug}[bot]"

    def user(self, login: str) -> dict[str, Any]:
        kind = "Bot" if login.endswith("[bot]") else "User"
        return {**user_json(login, user_id=stable_id(login), kind=kind), "url": self.api(f"/users/{login}")}

    def pull(self, repo: str, number: int) -> PullRequest:
        pr = self.pulls.get((repo, number))
        if pr is None:
            raise not_found()
        return pr

    def known_repo(self, repo: str) -> bool:
        return (any(repo in inst.repos for inst in self.installations.values())
                or any(key[0] == repo for key in [*self.pulls, *self.issues]) or repo in self.visibility)

    def is_public(self, repo: str) -> bool:
        return self.visibility.get(repo) == "public" and self.known_repo(repo)

    def resolve_ref(self, repo: str, ref: str | None) -> str | None:
        """A sha or branch name -> a commit sha; no ref means the default branch (`main`)."""
        ref = ref or "main"
        if (repo, ref) in self.commits:
            return ref
        if (repo, ref) in self.branches:
            return self.branches[(repo, ref)]
        # Later pull requests win, the way a branch points at its latest push.
        for pr in reversed(list(self.pulls.values())):
            if pr.repo == repo and pr.base_ref == ref:
                return pr.base_sha
            if pr.head_repo == repo and pr.head_ref == ref:
                return pr.head_sha
        return None

    def move_branch(self, repo: str, branch: str, sha: str) -> None:
        """A ref update: the open pull request whose head branch this is gets `sha` (a commit already in `commits`,
        its parents set) as a new revision, its diff recomputed against the base; any other branch just moves."""
        pr = next((p for p in reversed(list(self.pulls.values()))
                   if p.head_repo == repo and p.head_ref == branch and p.state == "open"), None)
        if pr is None:
            self.branches[(repo, branch)] = sha
        else:
            files = self.commits[(repo, sha)]
            for target in {pr.repo, pr.head_repo}:
                self.commits[(target, sha)] = dict(files)
            pr.push(sha, git_diff(self.commits[(pr.repo, pr.base_sha)], files))
            pr.updated_at = now_iso()
        self.pushed_to(repo)

    def pushed_to(self, repo: str) -> None:
        """A push to any branch of `repo` (its `pushed_at` moves on)."""
        self.pushed[repo] = max(int(time.time()), self.pushed.get(repo, 0) + 1)

    def repo_json(self, repo: str) -> dict[str, Any]:
        owner, name = repo.split("/", 1)
        return {
            "id": stable_id(repo),
            "node_id": f"R_fake{stable_id(repo)}",
            "name": name,
            "full_name": repo,
            "owner": {**self.user(owner), "type": "Organization"},
            # GitHub's internal repositories are private to the world: `private` true, `visibility` internal.
            "private": self.visibility.get(repo, "private") != "public",
            "default_branch": "main",
            "url": self.api(f"/repos/{repo}"),
            "html_url": f"{WEB_URL}/{repo}",
            "fork": False,
            "archived": False,
            "visibility": self.visibility.get(repo, "private"),
            "pushed_at": now_iso(datetime.fromtimestamp(self.pushed.get(repo, 1_700_000_000), UTC)),
        }
