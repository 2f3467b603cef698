"""A fake GitHub REST API for one GitHub App, served over real HTTP by `tests.fakes.server.ServedApp`.

`FakeGitHub` is the state (see `GitHubState`) plus the setup helpers tests call and the Starlette app
that routes requests to the endpoint modules (`github_auth`, `github_repos`, `github_reviews`,
`github_checks`, `github_issues`, `github_linked`). Every request is recorded and charged to its rate-limit bucket;
then an injected fault, if one matches, answers it; otherwise it must authenticate (app JWT, or an
installation or personal token) before its endpoint runs. Unknown paths are 404 whatever the credentials.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from tests.fakes import (
    github_advisories,
    github_apps,
    github_auth,
    github_check_suites,
    github_checks,
    github_code_scanning,
    github_contract,
    github_git,
    github_graphql,
    github_issues,
    github_linked,
    github_pulls,
    github_repo_issues,
    github_repos,
    github_reviews,
)
from tests.fakes.diffs import git_diff
from tests.fakes.github_core import JSON_MEDIA, ApiError, Call, Identity, Reply, not_found, now_iso
from tests.fakes.github_state import (
    DEFAULT_PERMISSIONS,
    Delay,
    Fault,
    GitHubState,
    Installation,
    IssuedToken,
    PullRequest,
    RateWindow,
    RecordedCall,
    content_sha,
)

Handler = Callable[[GitHubState, Call], Reply]
AuthKind = Literal["jwt", "token", "none"]

_REPO = "/repos/{owner}/{repo}"
_ROUTES: list[tuple[str, str, AuthKind, Handler]] = [
    ("GET", "/app", "jwt", github_auth.get_app),
    ("GET", "/app/installations", "jwt", github_auth.list_installations),
    ("GET", "/app/installations/{installation_id}", "jwt", github_auth.get_installation),
    ("POST", "/app/installations/{installation_id}/access_tokens", "jwt", github_auth.create_access_token),
    ("GET", f"{_REPO}/installation", "jwt", github_auth.get_repo_installation),
    ("GET", "/installation/repositories", "token", github_auth.list_installation_repos),
    ("GET", "/app/hook/deliveries", "jwt", github_apps.list_deliveries),
    ("POST", "/app/hook/deliveries/{delivery_id}/attempts", "jwt", github_apps.redeliver),
    ("POST", "/app-manifests/{code}/conversions", "none", github_apps.convert_manifest),
    ("PATCH", "/app/hook/config", "jwt", github_apps.update_hook_config),
    ("POST", "/graphql", "token", github_graphql.graphql),
    ("GET", f"{_REPO}/git/trees/{{ref:path}}", "token", github_repos.get_tree),
    # Fixes: one commit on a pull request's branch (blobs, a tree on the head's, the commit, the ref moved).
    ("POST", f"{_REPO}/git/blobs", "token", github_git.create_blob),
    ("POST", f"{_REPO}/git/trees", "token", github_git.create_tree),
    ("GET", f"{_REPO}/git/commits/{{sha}}", "token", github_git.get_commit),
    ("POST", f"{_REPO}/git/commits", "token", github_git.create_commit),
    ("GET", f"{_REPO}/git/ref/{{ref:path}}", "token", github_git.get_ref),
    ("PATCH", f"{_REPO}/git/refs/{{ref:path}}", "token", github_git.update_ref),
    ("POST", f"{_REPO}/git/refs", "token", github_git.create_ref),
    ("GET", f"{_REPO}/code-scanning/alerts/{{alert_number}}", "token", github_code_scanning.get_alert),
    ("GET", _REPO, "token", github_repos.get_repo),
    ("GET", f"{_REPO}/pulls", "token", github_pulls.list_pulls),
    ("POST", f"{_REPO}/pulls", "token", github_pulls.create_pull),
    ("GET", f"{_REPO}/pulls/{{number}}", "token", github_repos.get_pull),
    ("GET", f"{_REPO}/pulls/{{number}}/files", "token", github_repos.list_pull_files),
    ("GET", f"{_REPO}/contents/{{path:path}}", "token", github_repos.get_contents),
    ("GET", f"{_REPO}/tarball/{{ref:path}}", "token", github_repos.get_tarball),
    ("GET", "/_codeload/{owner}/{repo}/legacy.tar.gz/{sha}", "none", github_repos.get_codeload),
    ("GET", f"{_REPO}/collaborators/{{user}}/permission", "token", github_repos.get_permission),
    ("GET", "/user-attachments/assets/{asset_id}", "none", github_reviews.get_attachment),  # checks a token itself
    ("GET", f"{_REPO}/pulls/{{number}}/reviews", "token", github_reviews.list_reviews),
    ("POST", f"{_REPO}/pulls/{{number}}/reviews", "token", github_reviews.create_review),
    ("GET", f"{_REPO}/pulls/{{number}}/comments", "token", github_reviews.list_review_comments),
    ("POST", f"{_REPO}/pulls/{{number}}/comments/{{comment_id}}/replies", "token", github_reviews.reply_to_comment),
    ("GET", f"{_REPO}/pulls/comments/{{comment_id}}/reactions", "token", github_reviews.list_comment_reactions),
    ("GET", f"{_REPO}/compare/{{spec:path}}", "token", github_repos.compare),
    ("POST", f"{_REPO}/check-runs", "token", github_checks.create_check_run),
    ("GET", f"{_REPO}/check-runs/{{check_run_id}}", "token", github_checks.get_check_run),
    ("PATCH", f"{_REPO}/check-runs/{{check_run_id}}", "token", github_checks.update_check_run),
    ("GET", f"{_REPO}/check-runs/{{check_run_id}}/annotations", "token", github_checks.list_annotations),
    ("GET", f"{_REPO}/commits/{{ref:path}}/check-runs", "token", github_checks.list_for_ref),
    ("GET", f"{_REPO}/check-suites/{{check_suite_id}}/check-runs", "token", github_checks.list_for_suite),
    ("GET", f"{_REPO}/commits/{{ref:path}}", "token", github_repos.get_commit),
    ("GET", f"{_REPO}/issues/{{number}}/comments", "token", github_issues.list_comments),
    ("POST", f"{_REPO}/issues/{{number}}/comments", "token", github_issues.create_comment),
    ("GET", f"{_REPO}/issues/comments/{{comment_id}}", "token", github_issues.get_comment),
    ("PATCH", f"{_REPO}/issues/comments/{{comment_id}}", "token", github_issues.update_comment),
    ("GET", f"{_REPO}/issues/comments/{{comment_id}}/reactions", "token", github_issues.list_reactions),
    ("POST", f"{_REPO}/issues/comments/{{comment_id}}/reactions", "token", github_issues.create_reaction),
    ("GET", f"{_REPO}/issues/{{number}}", "token", github_linked.get_issue),
    ("GET", f"{_REPO}/pulls/{{number}}/commits", "token", github_linked.list_pull_commits),
    # Security audits: SARIF uploads to code scanning, and the tracking issue where code scanning is off.
    ("POST", f"{_REPO}/code-scanning/sarifs", "token", github_code_scanning.upload),
    ("GET", f"{_REPO}/code-scanning/sarifs/{{sarif_id}}", "token", github_code_scanning.status),
    ("GET", f"{_REPO}/code-scanning/alerts", "token", github_code_scanning.list_alerts),
    ("GET", f"{_REPO}/issues", "token", github_repo_issues.list_issues),
    ("POST", f"{_REPO}/issues", "token", github_repo_issues.create),
    ("PATCH", f"{_REPO}/issues/{{issue_number}}", "token", github_repo_issues.update),
    # A public repository's findings where code scanning is refused: one private draft security advisory.
    ("GET", f"{_REPO}/security-advisories", "token", github_advisories.list_advisories),
    ("POST", f"{_REPO}/security-advisories", "token", github_advisories.create),
    ("GET", f"{_REPO}/security-advisories/{{ghsa_id}}", "token", github_advisories.get),
    ("PATCH", f"{_REPO}/security-advisories/{{ghsa_id}}", "token", github_advisories.update),
]
_ALL_METHODS = ["GET", "POST", "PATCH", "PUT", "DELETE"]
_RATE_DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"


def _tree_id(files: dict[str, str]) -> str:
    return content_sha("tree", json.dumps(sorted(files.items())))


def _redacted_headers(request: Request) -> dict[str, str]:
    headers = dict(request.headers.items())
    if "authorization" in headers:
        # Tests may check which scheme was used, but secrets never end up in the request log.
        headers["authorization"] = headers["authorization"].split(" ", 1)[0] + " [redacted]"
    return headers


class FakeGitHub(GitHubState):
    """The GitHub REST API as one GitHub App sees it. `base_url` must be set once the app is served."""

    def __init__(self, app_id: int, public_key_pem: bytes, app_slug: str = "reviewbot-test") -> None:
        super().__init__(app_id, public_key_pem, app_slug)
        routes = [
            Route(path, self._endpoint(auth, handler), methods=[method]) for method, path, auth, handler in _ROUTES
        ]
        # Last, so that it only catches what no route matched (including known paths with other methods).
        routes.append(Route("/{rest:path}", self._endpoint("token", None), methods=_ALL_METHODS))
        self.app = Starlette(routes=routes)

    # ----- setup helpers for tests ---------------------------------------------------------------

    def add_installation(
        self, installation_id: int, repos: list[str], *, permissions: dict[str, str] | None = None
    ) -> None:
        with self.lock:
            self.installations[installation_id] = Installation(
                id=installation_id,
                repos=set(repos),
                permissions=dict(permissions or DEFAULT_PERMISSIONS),
                account=repos[0].split("/")[0] if repos else "reviewbot-org",
            )

    def complete_check_suite(self, repo: str, sha: str, runs: list[tuple[str, str]]) -> dict[str, Any]:
        """CI (another App) finished on `sha` with `(name, conclusion)` runs: the webhook payload to deliver."""
        with self.lock:
            installation = self.installation_for(repo) or 0
            return github_check_suites.complete_suite(self, repo, sha, runs, installation)

    def set_branch(self, repo: str, branch: str, files: dict[str, str]) -> str:
        """Point `branch` at a new commit holding exactly `files` (an audit reads a branch, not a pull request)."""
        with self.lock:
            sha = content_sha("branch", repo, branch, _tree_id(files))
            self.commits[(repo, sha)] = dict(files)
            self.branches[(repo, branch)] = sha
            self.pushed_to(repo)
            return sha

    def installation_for(self, repo: str) -> int | None:
        with self.lock:
            return next((i.id for i in self.installations.values() if repo in i.repos), None)

    def add_pull(
        self,
        repo: str,
        number: int,
        *,
        base_files: dict[str, str],
        head_files: dict[str, str],
        title: str = "Add feature",
        body: str = "",
        draft: bool = False,
        author: str = "octocat",
        base_ref: str = "main",
        head_ref: str = "feature",
        base_sha: str | None = None,
        head_sha: str | None = None,
        diff_override: str | None = None,
        labels: list[str] | None = None,
        head_repo: str | None = None,
    ) -> dict[str, Any]:
        """Open a pull request; the diff is computed from the two trees unless `diff_override` is given."""
        base_sha = base_sha or _tree_id(base_files)
        head_sha = head_sha or content_sha("commit", base_sha, _tree_id(head_files))
        now = now_iso()
        with self.lock:
            pr = PullRequest(
                repo=repo,
                number=number,
                id=self.next_id(),
                title=title,
                body=body,
                draft=draft,
                author=author,
                base_ref=base_ref,
                head_ref=head_ref,
                head_repo=head_repo or repo,
                base_sha=base_sha,
                created_at=now,
                updated_at=now,
                labels=list(labels or []),
            )
            self.commits[(repo, base_sha)] = dict(base_files)
            self._push(pr, head_files, head_sha, diff_override)
            self.pulls[(repo, number)] = pr
            return github_repos.pull_json(self, pr)

    def update_head(
        self,
        repo: str,
        number: int,
        head_files: dict[str, str],
        head_sha: str | None = None,
        *,
        diff_override: str | None = None,
        parents: list[str] | None = None,
    ) -> dict[str, Any]:
        """A new push to the pull request's branch: new head sha, diff recomputed against the base.

        `parents` defaults to the previous head; `[previous head, base sha]` is an "Update branch" merge.
        """
        with self.lock:
            pr = self.pull(repo, number)
            previous = pr.head_sha
            head_sha = head_sha or content_sha("commit", pr.head_sha, _tree_id(head_files))
            self.parents[(repo, head_sha)] = list(parents) if parents is not None else [previous]
            self._push(pr, head_files, head_sha, diff_override)
            pr.updated_at = now_iso()
            return github_repos.pull_json(self, pr)

    def _push(self, pr: PullRequest, head_files: dict[str, str], head_sha: str, diff_override: str | None) -> None:
        # Fork heads are reachable from the base repository too, as on GitHub (refs/pull/N/head).
        for repo in {pr.repo, pr.head_repo}:
            self.commits[(repo, head_sha)] = dict(head_files)
        base_files = self.commits[(pr.repo, pr.base_sha)]
        pr.push(head_sha, diff_override if diff_override is not None else git_diff(base_files, head_files))

    def add_issue_comment(self, repo: str, number: int, body: str, *, author: str = "octocat") -> dict[str, Any]:
        """A conversation comment by someone else (e.g. a `/review` command), as GitHub would store it."""
        with self.lock:
            return github_issues.add_comment(self, repo, number, body, author)

    def add_review_reply(self, repo: str, number: int, parent_id: int, body: str, *,
                         author: str = "maintainer-mo") -> dict[str, Any]:
        """A person's reply in a review thread (then deliver `pull_request_review_comment` for it)."""
        with self.lock:
            return github_reviews.add_reply(self, repo, number, parent_id, body, author)

    def add_attachment(self, data: bytes, content_type: str = "image/png", *, public: bool = False) -> str:
        """An uploaded attachment; returns its URL as the web UI would write it into a description. Only a token
        reads it, unless `public` (uploaded in a public repository: anyone reads it, signed in or not)."""
        with self.lock:
            asset = f"{len(self.attachments) + 1:08d}-fake-{secrets.token_hex(4)}"
            self.attachments[asset] = (content_type, data)
            if public:
                self.public_attachments.add(asset)
            return f"{self.base_url}/user-attachments/assets/{asset}"

    def add_redirecting_attachment(self, location: str) -> str:
        """An attachment URL that GitHub answers with a redirect to `location` (as it does to signed storage)."""
        with self.lock:
            asset = f"{len(self.attachments) + len(self.attachment_redirects) + 1:08d}-moved-{secrets.token_hex(4)}"
            self.attachment_redirects[asset] = location
            return f"{self.base_url}/user-attachments/assets/{asset}"

    def add_delivery(self, guid: str, status_code: int, *, event: str = "pull_request",
                     action: str | None = "opened", delivered_at: str | None = None,
                     redelivery: bool = False) -> dict[str, Any]:
        """One attempt at delivering webhook `guid` (status_code 0: GitHub could not connect)."""
        with self.lock:
            return github_apps.add_delivery(self, guid, status_code, event=event, action=action,
                                            delivered_at=delivered_at, redelivery=redelivery)

    def add_manifest_code(self, code: str, private_key_pem: bytes) -> None:
        """What GitHub's redirect after "Create GitHub App" carries; converting it returns this App and key."""
        with self.lock:
            self.manifest_codes[code] = private_key_pem

    def add_issue(self, repo: str, number: int, title: str = "An issue", body: str = "", *, state: str = "open",
                  author: str = "octocat") -> dict[str, Any]:
        """A plain issue (not a pull request) of `repo`, readable and taking comments like a pull request's (the
        repository may be outside every installation: then the App can read it only if it is public)."""
        with self.lock:
            return github_linked.add_issue(self, repo, number, title, body, state, author)

    def set_visibility(self, repo: str, visibility: Literal["public", "private", "internal"]) -> None:
        """Make `repo` public, private (every repository's default) or internal, as `GET /repos/{owner}/{repo}` and
        pull requests' `base.repo` show it; a public one is readable by any token, installed there or not."""
        with self.lock:
            self.visibility[repo] = visibility

    def link_closing_issue(self, repo: str, number: int, issue_repo: str, issue_number: int) -> None:
        """Link an issue to the pull request by hand (the sidebar's Development box): GraphQL lists it in
        `closingIssuesReferences`."""
        with self.lock:
            self.closing.setdefault((repo, number), []).append((issue_repo, issue_number))

    def set_commit_message(self, repo: str, sha: str, message: str) -> None:
        """The message of a pushed head commit, as the pull request's commit list shows it."""
        with self.lock:
            self.commit_messages[(repo, sha)] = message

    def alerts(self, repo: str, state: str | None = None) -> list[dict[str, Any]]:
        """Code-scanning alerts of a repository (each: number, rule_id, path, state open/fixed, category, ref)."""
        with self.lock:
            return [dict(a) for a in self.code_scanning_alerts[repo] if state in (None, a["state"])]

    def decide_alert(self, repo: str, number: int, *, by: str, reason: str | None,
                     installation_id: int) -> dict[str, Any]:
        """A person dismisses (`reason`) or reopens (None) code-scanning alert `number` in GitHub's interface;
        returns the `code_scanning_alert` webhook GitHub then delivers, for the test to send."""
        with self.lock:
            return github_code_scanning.decide(self, repo, number, by=by, reason=reason,
                                               installation_id=installation_id)

    def add_analysis(self, repo: str, ref: str, run: dict[str, Any]) -> None:
        """An analysis GitHub processed earlier (an upload of an earlier version), its alerts opened or closed."""
        with self.lock:
            github_code_scanning.analyse(self, repo, ref, run)

    def make_public(self, repo: str) -> None:
        """The repository's `private` is false and its `visibility` public (every other repository is private)."""
        self.set_visibility(repo, "public")

    def repo_advisories(self, repo: str) -> list[dict[str, Any]]:
        """The repository's security advisories as GitHub lists them (drafts included)."""
        with self.lock:
            return [github_advisories.render(a) for a in self.advisories[repo]]

    def take_violations(self) -> list[str]:
        """The contract violations seen so far, forgotten once taken (for tests that break the contract on purpose)."""
        with self.lock:
            found, self.violations = self.violations, []
            return found

    def timed_requests(self, method: str = "*", path_regex: str = ".*") -> list[tuple[float, RecordedCall]]:
        """(arrival time, request) of the recorded requests that match."""
        pattern = re.compile(path_regex)
        with self.lock:
            return [(at, call) for at, call in zip(self.request_times, self.requests, strict=True)
                    if method in ("*", call.method) and pattern.fullmatch(call.path)]

    @property
    def enterprise_app(self) -> ASGIApp:
        """This API as GitHub Enterprise Server serves it: REST under /api/v3, GraphQL at /api/graphql.
        Serve it and set `base_url` to `{served}/api/v3` for as long as a test uses it."""

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                path = str(scope["path"])
                path = "/graphql" if path == "/api/graphql" else (
                    path.removeprefix("/api/v3") if path.startswith("/api/v3/") else "/not-enterprise" + path)
                scope = {**scope, "path": path, "raw_path": path.encode()}
            await self.app(scope, receive, send)

        return app

    def set_state(self, repo: str, number: int, state: str) -> dict[str, Any]:
        """Close (`closed`) or reopen (`open`) a pull request, as its author would on GitHub."""
        with self.lock:
            pr = self.pull(repo, number)
            pr.state = state
            pr.updated_at = now_iso()
            return github_repos.pull_json(self, pr)

    def react(self, comment_id: int, content: str, login: str) -> None:
        """Someone reacts to a comment (an issue comment or a review comment) in GitHub's interface."""
        with self.lock:
            self.reactions[comment_id].append({"id": self.next_id(), "node_id": f"REA_fake{comment_id}",
                                               "user": self.user(login), "content": content,
                                               "created_at": now_iso()})

    def resolve_as(self, thread_id: str, login: str) -> None:
        """A person presses "Resolve conversation" on a review thread."""
        with self.lock:
            self.resolved_threads.add(thread_id)
            self.resolvers[thread_id] = login

    def slow(self, method: str, path_regex: str, seconds: float, times: int = 1) -> None:
        """The next `times` matching requests get the answer computed when they arrive, `seconds` later: what
        a client sees when its answer is overtaken by a change made meanwhile."""
        with self.lock:
            self.delays.append(Delay(method.upper(), re.compile(path_regex), seconds, times))

    def expire_tokens(self) -> None:
        """Every installation token issued so far now answers 401 Bad credentials."""
        with self.lock:
            for token in self.tokens.values():
                token.revoked = True

    def workflow_token(self, installation_id: int) -> str:
        """A token like the `GITHUB_TOKEN` of a workflow run: an installation token handed to the job (GitHub's
        Actions App's), which the job uses as it is and never asks for with a JWT."""
        token = "ghs_" + "".join(secrets.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(36))
        with self.lock:
            self.tokens[token] = IssuedToken(installation_id=installation_id, expires_at=time.time() + 3600)
        return token

    def inject(
        self,
        method: str,
        path_regex: str,
        status: int,
        body: dict[str, Any] | str | None = None,
        headers: dict[str, str] | None = None,
        times: int = 1,
        *,
        after: bool = False,
        every: int = 1,
    ) -> None:
        """Answer the next `times` requests whose method matches (`*` for any) and whose whole path
        matches `path_regex` with this response instead of the real one; with `after`, the request is
        processed first (a write that happened although the client saw an error); with `every=3`, only
        every third matching request gets the fault."""
        with self.lock:
            self.faults.append(Fault(method.upper(), re.compile(path_regex), status, body, dict(headers or {}),
                                     times, after, every))

    # ----- request handling ----------------------------------------------------------------------

    def _endpoint(self, auth: AuthKind, handler: Handler | None) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            raw = await request.body()
            # Handlers are synchronous and never await, so holding the lock here serialises whole requests.
            with self.lock:
                response = self._dispatch(request, raw, auth, handler)
                delay = next((d for d in self.delays if d.remaining > 0 and d.method in ("*", request.method)
                              and d.pattern.fullmatch(request.url.path)), None)
                if delay is not None:
                    delay.remaining -= 1
            if delay is not None:
                await asyncio.sleep(delay.seconds)
            return response

        return endpoint

    def _take_fault(self, method: str, path: str) -> Fault | None:
        for fault in self.faults:
            if fault.remaining > 0 and fault.method in ("*", method) and fault.pattern.fullmatch(path):
                fault.seen += 1
                if fault.seen % fault.every:
                    continue
                fault.remaining -= 1
                return fault
        return None

    def _authenticate(self, request: Request, auth: AuthKind) -> Identity:
        if auth == "none":
            return Identity(kind="anonymous", rate_key="anonymous")
        if auth == "jwt":
            return github_auth.app_identity(self, request.headers)
        params = request.path_params
        repo = f"{params['owner']}/{params['repo']}" if "owner" in params and "repo" in params else None
        return github_auth.token_identity(self, request.headers, repo, request.method)

    def _dispatch(self, request: Request, raw: bytes, auth: AuthKind, handler: Handler | None) -> Response:
        method, path = request.method, request.url.path
        self.requests.append(RecordedCall(method, path, dict(request.query_params), _redacted_headers(request)))
        self.violations += github_contract.check_request(
            method, path, dict(request.query_params), dict(request.headers), self._parse_contract_body(raw),
            bool(raw.strip()))
        self.request_times.append(time.time())
        identity = Identity(kind="anonymous", rate_key="anonymous")
        auth_error: ApiError | None = None
        try:
            identity = self._authenticate(request, auth)
        except github_auth.ForbiddenFor as error:
            identity, auth_error = error.identity, error
        except ApiError as error:
            auth_error = error
        rate_headers, exhausted = self._charge(identity)
        fault = self._take_fault(method, path)
        if fault is not None and not fault.after:
            return self._fault_response(fault, rate_headers)
        try:
            if handler is None:
                raise not_found()
            if auth_error is not None:
                raise auth_error
            if exhausted:
                raise self._rate_limited(identity)
            call = Call(
                method=method,
                path=path,
                params={k: str(v) for k, v in request.path_params.items()},
                query=dict(request.query_params),
                headers=request.headers,
                body=self._parse_body(raw),
                identity=identity,
                base_url=self.base_url,
            )
            reply = handler(self, call)
        except ApiError as error:
            reply = Reply(error.status, error.body(), headers=error.headers)
        if fault is not None:
            return self._fault_response(fault, rate_headers)
        if reply.text is None:
            self.violations += github_contract.check_response(method, path, reply.status, reply.media_type,
                                                              reply.json)
        return self._response(reply, rate_headers)

    def _fault_response(self, fault: Fault, rate_headers: dict[str, str]) -> Response:
        if isinstance(fault.body, str):
            reply = Reply(fault.status, text=fault.body, media_type="text/plain", headers=fault.headers)
        else:
            reply = Reply(fault.status, fault.body, headers=fault.headers)
        return self._response(reply, rate_headers)

    @staticmethod
    def _parse_contract_body(raw: bytes) -> Any:
        try:
            return json.loads(raw) if raw.strip() else None
        except ValueError:
            return raw.decode(errors="replace")

    @staticmethod
    def _parse_body(raw: bytes) -> Any:
        if not raw.strip():
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise ApiError(400, "Problems parsing JSON") from None

    def _charge(self, identity: Identity) -> tuple[dict[str, str], bool]:
        """Count the request against its bucket; returns the x-ratelimit-* headers and whether it is empty."""
        limit = 60 if identity.kind == "anonymous" else self.rate_limit
        now = int(time.time())
        window = self.rate_windows.get(identity.rate_key)
        if window is None or window.reset_at <= now:
            window = self.rate_windows[identity.rate_key] = RateWindow(used=0, reset_at=now + 3600)
        exhausted = window.used >= limit
        if not exhausted:
            window.used += 1
        headers = {
            "x-ratelimit-limit": str(limit),
            "x-ratelimit-remaining": str(limit - window.used),
            "x-ratelimit-used": str(window.used),
            "x-ratelimit-reset": str(window.reset_at),
            "x-ratelimit-resource": "core",
        }
        return headers, exhausted

    @staticmethod
    def _rate_limited(identity: Identity) -> ApiError:
        who = (
            f"installation ID {identity.installation_id}"
            if identity.installation_id is not None
            else f"user ID {identity.login or 'anonymous'}"
        )
        return ApiError(403, f"API rate limit exceeded for {who}.", documentation_url=_RATE_DOCS)

    @staticmethod
    def _response(reply: Reply, rate_headers: dict[str, str]) -> Response:
        request_id = secrets.token_hex(10).upper()
        headers = {
            **rate_headers,
            "x-github-request-id": f"{request_id[:4]}:{request_id[4:10]}:{request_id[10:]}",
            "x-github-api-version-selected": "2022-11-28",
            **reply.headers,
        }
        if reply.text is not None:
            return Response(reply.text, reply.status, headers=headers, media_type=reply.media_type)
        if reply.json is None:
            return Response(b"", reply.status, headers=headers)
        content = json.dumps(reply.json, ensure_ascii=False).encode()
        return Response(content, reply.status, headers=headers, media_type=JSON_MEDIA)
