"""The fakes behave like the real services, as seen through real clients (PyGithub, httpx, git)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import github
import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from github.ContentFile import ContentFile
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from tests.conftest_fakes import APP_ID
from tests.fakes.diffs import git_diff
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.fakes.server import ServedApp

REPO = "acme/widgets"
INSTALLATION = 77
BASE = {
    "src/app.py": "import os\n\n\ndef main():\n" + "".join(f"    step_{i}()\n" for i in range(30)),
    "README.md": "# Widgets\n",
}
HEAD = {
    "src/app.py": BASE["src/app.py"].replace("    step_15()\n", "    step_15(retries=3)\n    log()\n"),
    "README.md": "# Widgets\n",
    "src/new.py": "VALUE = 1\n",
}


def client(fake: FakeGitHub, token: str) -> github.Github:
    return github.Github(
        auth=github.Auth.Token(token),
        base_url=fake.base_url,
        retry=None,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )


def integration(fake: FakeGitHub, private_pem: bytes) -> github.GithubIntegration:
    return github.GithubIntegration(
        auth=github.Auth.AppAuth(APP_ID, private_pem.decode()),
        base_url=fake.base_url,
        retry=None,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )


@dataclass
class Installed:
    fake: FakeGitHub
    token: str
    pr: dict[str, Any]

    @property
    def head_sha(self) -> str:
        sha: str = self.pr["head"]["sha"]
        return sha

    @property
    def gh(self) -> github.Github:
        return client(self.fake, self.token)


@pytest.fixture
def installed(fake_github: FakeGitHub, app_keypair: tuple[bytes, bytes]) -> Installed:
    """An installation on REPO, pull request #7 (BASE -> HEAD), and an installation token."""
    fake_github.add_installation(INSTALLATION, [REPO])
    pr = fake_github.add_pull(REPO, 7, base_files=BASE, head_files=HEAD)
    token = integration(fake_github, app_keypair[0]).get_access_token(INSTALLATION).token
    return Installed(fake_github, token, pr)


# ----- server -------------------------------------------------------------------------------------


def test_served_app_starts_quickly_and_stops() -> None:
    async def hello(request: object) -> PlainTextResponse:
        return PlainTextResponse("hi")

    started = time.monotonic()
    with ServedApp(Starlette(routes=[Route("/", hello)])) as served:
        assert time.monotonic() - started < 0.5
        assert served.url.startswith("http://127.0.0.1:")
        assert httpx.get(served.url).text == "hi"
    with pytest.raises(httpx.ConnectError):
        httpx.get(served.url, timeout=1)


# ----- app authentication -------------------------------------------------------------------------


def test_installation_token_is_issued_for_a_valid_jwt(installed: Installed) -> None:
    assert installed.token.startswith("ghs_") and len(installed.token) >= 40
    repo = installed.gh.get_repo(REPO)
    assert repo.full_name == REPO and repo.default_branch == "main"


def test_token_response_shape(fake_github: FakeGitHub, app_keypair: tuple[bytes, bytes]) -> None:
    fake_github.add_installation(INSTALLATION, [REPO])
    auth = integration(fake_github, app_keypair[0]).get_access_token(INSTALLATION)
    assert timedelta(minutes=59) < auth.expires_at - datetime.now(UTC) <= timedelta(hours=1)
    assert auth.permissions["pull_requests"] == "write"


def test_jwt_signed_with_another_key_is_rejected(fake_github: FakeGitHub) -> None:
    fake_github.add_installation(INSTALLATION, [REPO])
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = other.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    with pytest.raises(github.GithubException) as caught:
        integration(fake_github, pem).get_access_token(INSTALLATION)
    assert caught.value.status == 401
    assert caught.value.data["message"] == "A JSON web token could not be decoded"


def test_jwt_living_too_long_is_rejected(fake_github: FakeGitHub, app_keypair: tuple[bytes, bytes]) -> None:
    fake_github.add_installation(INSTALLATION, [REPO])
    now = int(time.time())
    token = jwt.encode({"iat": now - 60, "exp": now + 3600, "iss": str(APP_ID)}, app_keypair[0], "RS256")
    response = httpx.post(
        f"{fake_github.base_url}/app/installations/{INSTALLATION}/access_tokens",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 401
    assert response.json()["message"] == "'Expiration time' claim ('exp') is too far in the future"


def test_unknown_installation_is_404(fake_github: FakeGitHub, app_keypair: tuple[bytes, bytes]) -> None:
    with pytest.raises(github.UnknownObjectException):
        integration(fake_github, app_keypair[0]).get_access_token(999)


def test_expired_tokens_get_bad_credentials(installed: Installed) -> None:
    installed.gh.get_repo(REPO)
    installed.fake.expire_tokens()
    with pytest.raises(github.BadCredentialsException):
        installed.gh.get_repo(REPO)


def test_a_token_reads_public_repositories_only_beyond_its_installation(installed: Installed) -> None:
    installed.fake.add_pull("other/repo", 1, base_files={}, head_files={"a": "b\n"})
    # GitHub hides a private repository the token may not see: the same 404 as one that does not exist.
    for name in ("other/repo", "other/nothing"):
        with pytest.raises(github.UnknownObjectException) as hidden:
            installed.gh.get_repo(name)
        assert hidden.value.status == 404 and hidden.value.data["message"] == "Not Found"
    installed.fake.set_visibility("other/repo", "public")
    public = installed.gh.get_repo("other/repo")
    assert (public.private, public.raw_data["visibility"]) == (False, "public")
    with pytest.raises(github.GithubException) as caught:  # reading is not writing
        public.create_issue("Hello")
    assert caught.value.status == 403
    assert caught.value.data["message"] == "Resource not accessible by integration"
    installed.fake.set_visibility(REPO, "internal")
    assert installed.gh.get_repo(REPO).raw_data["visibility"] == "internal"
    assert installed.gh.get_repo(REPO).private


def test_rate_limit_headers_count_down_per_token(installed: Installed) -> None:
    url = f"{installed.fake.base_url}/repos/{REPO}"
    headers = {"Authorization": f"token {installed.token}"}
    first, second = httpx.get(url, headers=headers), httpx.get(url, headers=headers)
    assert first.headers["x-ratelimit-limit"] == "5000"
    assert int(first.headers["x-ratelimit-remaining"]) - 1 == int(second.headers["x-ratelimit-remaining"])
    assert int(second.headers["x-ratelimit-reset"]) > time.time()
    assert second.headers["x-ratelimit-resource"] == "core" and second.headers["x-github-request-id"]


def test_requests_are_logged_without_secrets(installed: Installed) -> None:
    installed.gh.get_repo(REPO)
    method, path, _query, headers = installed.fake.requests[-1]
    assert (method, path) == ("GET", f"/repos/{REPO}")
    assert headers["authorization"] == "token [redacted]"
    assert all(installed.token not in value for _, _, _, h in installed.fake.requests for value in h.values())


def test_installation_auth_through_pygithub(installed: Installed, app_keypair: tuple[bytes, bytes]) -> None:
    auth = github.Auth.AppAuth(APP_ID, app_keypair[0].decode()).get_installation_auth(INSTALLATION)
    gh = github.Github(auth=auth, base_url=installed.fake.base_url, retry=None, seconds_between_requests=None)
    assert gh.get_repo(REPO).get_pull(7).user.login == "octocat"
    assert integration(installed.fake, app_keypair[0]).get_repo_installation("acme", "widgets").id == INSTALLATION


# ----- pull requests ------------------------------------------------------------------------------


def test_pull_request_json_and_diff(installed: Installed) -> None:
    pr = installed.gh.get_repo(REPO).get_pull(7)
    assert (pr.number, pr.title, pr.state, pr.draft) == (7, "Add feature", "open", False)
    assert pr.head.sha == installed.head_sha
    assert (pr.changed_files, pr.additions, pr.deletions) == (2, 3, 1)

    response = httpx.get(
        pr.url, headers={"Authorization": f"token {installed.token}", "Accept": "application/vnd.github.diff"}
    )
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.text.startswith("diff --git a/src/app.py b/src/app.py\n")
    assert "@@ -17,7 +17,8 @@ def main():\n" in response.text


def test_files_paginate_across_pages(fake_github: FakeGitHub, installed: Installed) -> None:
    head = {f"pkg/mod_{i:03}.py": f"x = {i}\n" for i in range(65)}
    fake_github.add_pull(REPO, 8, base_files={}, head_files=head)
    files = list(installed.gh.get_repo(REPO).get_pull(8).get_files())
    assert [f.filename for f in files] == sorted(head)
    assert files[0].status == "added" and files[0].patch == "@@ -0,0 +1 @@\n+x = 0"
    pages = [q.get("page") for m, p, q, _ in fake_github.requests if p.endswith("/pulls/8/files")]
    assert pages == [None, "2", "3"]

    response = httpx.get(
        f"{fake_github.base_url}/repos/{REPO}/pulls/8/files?per_page=30&page=2",
        headers={"Authorization": f"token {installed.token}"},
    )
    link = response.headers["link"]
    assert f'<{fake_github.base_url}/repos/{REPO}/pulls/8/files?per_page=30&page=3>; rel="next"' in link
    assert 'rel="prev"' in link and 'rel="last"' in link and 'rel="first"' in link


def test_diff_of_more_than_300_files_is_406(fake_github: FakeGitHub, installed: Installed) -> None:
    fake_github.add_pull(REPO, 9, base_files={}, head_files={f"f{i}.txt": "x\n" for i in range(301)})
    response = httpx.get(
        f"{fake_github.base_url}/repos/{REPO}/pulls/9",
        headers={"Authorization": f"token {installed.token}", "Accept": "application/vnd.github.v3.diff"},
    )
    assert response.status_code == 406
    assert response.json()["errors"] == [{"resource": "PullRequest", "field": "diff", "code": "too_large"}]
    assert "maximum number of files (300)" in response.json()["message"]


def test_contents_by_branch_and_sha(installed: Installed) -> None:
    repo = installed.gh.get_repo(REPO)
    new_file = repo.get_contents("src/new.py", ref="feature")
    readme = repo.get_contents("README.md", ref=installed.pr["base"]["sha"])
    assert isinstance(new_file, ContentFile) and isinstance(readme, ContentFile)
    assert new_file.decoded_content == b"VALUE = 1\n"
    # GitHub wraps base64 at 60 columns and ends it with a newline.
    assert readme.content == "IyBXaWRnZXRzCg==\n"
    with pytest.raises(github.UnknownObjectException):
        repo.get_contents("src/new.py", ref="main")
    raw = httpx.get(
        f"{installed.fake.base_url}/repos/{REPO}/contents/README.md",
        headers={"Authorization": f"token {installed.token}", "Accept": "application/vnd.github.raw"},
    )
    assert raw.text == "# Widgets\n"


def test_huge_diff_and_huge_patch(fake_github: FakeGitHub, installed: Installed) -> None:
    fake_github.add_pull(REPO, 10, base_files={}, head_files={"big.txt": "x\n" * 20_001, "small.txt": "y\n"})
    headers = {"Authorization": f"token {installed.token}", "Accept": "application/vnd.github.diff"}
    response = httpx.get(f"{fake_github.base_url}/repos/{REPO}/pulls/10", headers=headers)
    assert response.status_code == 406
    assert "maximum number of lines (20000)" in response.json()["message"]
    files = list(installed.gh.get_repo(REPO).get_pull(10).get_files())
    assert [(f.filename, f.patch is None) for f in files] == [("big.txt", True), ("small.txt", False)]


def test_renames_and_directory_listing(fake_github: FakeGitHub, installed: Installed) -> None:
    fake_github.add_pull(REPO, 11, base_files={"a/x.py": "x = 1\n"}, head_files={"b/x.py": "x = 1\n"})
    (renamed,) = installed.gh.get_repo(REPO).get_pull(11).get_files()
    assert (renamed.filename, renamed.status, renamed.previous_filename) == ("b/x.py", "renamed", "a/x.py")
    listing = installed.gh.get_repo(REPO).get_contents("src", ref=installed.head_sha)
    assert isinstance(listing, list) and [c.path for c in listing] == ["src/app.py", "src/new.py"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_diff_is_byte_identical_to_git(tmp_path: Path) -> None:
    base = {**BASE, "old.txt": "gone\n", "same.txt": "moved\n", "tail.txt": "a\nb"}
    head = {**HEAD, "sub/same.txt": "moved\n", "tail.txt": "a\nb\n", "empty.txt": ""}
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(tmp_path), *args], check=True, capture_output=True, env=env
        ).stdout.decode()

    def write(files: dict[str, str]) -> None:
        for path, content in files.items():
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(content)

    git("init", "-q")
    write(base)
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    for path in set(base) - set(head):
        (tmp_path / path).unlink()
    write(head)
    git("add", "-A")
    assert git_diff(base, head) == git("diff", "--cached", "-M", "--no-color", "--no-ext-diff")


# ----- reviews ------------------------------------------------------------------------------------


def test_review_on_a_diff_line_is_accepted(installed: Installed) -> None:
    pr = installed.gh.get_repo(REPO).get_pull(7)
    review = pr.create_review(
        body="Two findings.",
        event="COMMENT",
        comments=[
            {"path": "src/app.py", "line": 21, "side": "RIGHT", "body": "Log what?"},
            {"path": "src/app.py", "start_line": 20, "line": 21, "body": "Why 3?"},
            {"path": "src/app.py", "line": 22, "side": "LEFT", "body": "context line, old side"},
        ],
    )
    assert review.state == "COMMENTED" and review.user.login == "reviewbot-test[bot]"
    stored = installed.fake.reviews[(REPO, 7)]
    assert [r["id"] for r in stored] == [review.id] and stored[0]["body"] == "Two findings."
    comments = list(pr.get_review_comments())
    assert [(c.path, c.line, c.start_line) for c in comments] == [
        ("src/app.py", 21, None),
        ("src/app.py", 21, 20),
        ("src/app.py", 22, None),
    ]
    assert comments[0].diff_hunk.endswith("+    log()")


def test_review_on_a_line_outside_the_diff_is_rejected_whole(installed: Installed) -> None:
    pr = installed.gh.get_repo(REPO).get_pull(7)
    with pytest.raises(github.GithubException) as caught:
        pr.create_review(
            body="Findings.",
            event="COMMENT",
            comments=[
                {"path": "src/app.py", "line": 17, "body": "fine"},
                {"path": "src/app.py", "line": 2, "body": "not in any hunk"},
            ],
        )
    assert caught.value.status == 422
    assert caught.value.data["errors"] == ["Line could not be resolved"]
    assert installed.fake.reviews[(REPO, 7)] == []
    assert installed.fake.review_comments[(REPO, 7)] == []


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        ({"event": "COMMENT"}, "Body can't be blank"),
        ({"event": "COMMENT", "body": "x" * 65_537}, "Body is too long (maximum is 65536 characters)"),
        (
            {"event": "COMMENT", "body": "b", "comments": [{"path": "nope.py", "line": 1, "body": "c"}]},
            "Path could not be resolved",
        ),
        (
            {
                "event": "COMMENT",
                "body": "b",
                "comments": [{"path": "src/app.py", "start_line": 4, "line": 18, "body": "c"}],
            },
            "Start line could not be resolved",
        ),
    ],
)
def test_review_validation(installed: Installed, payload: dict[str, object], error: str) -> None:
    response = httpx.post(
        f"{installed.fake.base_url}/repos/{REPO}/pulls/7/reviews",
        headers={"Authorization": f"Bearer {installed.token}"},
        json=payload,
    )
    assert response.status_code == 422
    assert response.json()["errors"] == [error]


def test_review_may_target_an_earlier_push(installed: Installed) -> None:
    first_sha = installed.head_sha
    installed.fake.update_head(REPO, 7, {**HEAD, "src/app.py": BASE["src/app.py"]})
    pr = installed.gh.get_repo(REPO).get_pull(7)
    assert pr.head.sha != first_sha and pr.changed_files == 1
    response = httpx.post(
        f"{installed.fake.base_url}/repos/{REPO}/pulls/7/reviews",
        headers={"Authorization": f"token {installed.token}"},
        json={
            "commit_id": first_sha,
            "event": "COMMENT",
            "body": "b",
            "comments": [{"path": "src/app.py", "line": 17, "body": "on the old push"}],
        },
    )
    assert response.status_code == 200 and response.json()["commit_id"] == first_sha


def test_pending_review_and_legacy_position(installed: Installed) -> None:
    url = f"{installed.fake.base_url}/repos/{REPO}/pulls/7/reviews"
    headers = {"Authorization": f"token {installed.token}"}
    # Position 5 of src/app.py's patch is the first added line (new line 20).
    pending = {"comments": [{"path": "src/app.py", "position": 5, "body": "draft"}]}
    first = httpx.post(url, headers=headers, json=pending)
    assert (first.status_code, first.json()["state"]) == (200, "PENDING")
    assert "submitted_at" not in first.json()
    assert httpx.post(url, headers=headers, json=pending).status_code == 422
    (comment,) = installed.fake.review_comments[(REPO, 7)]
    assert (comment["line"], comment["side"], comment["position"]) == (20, "RIGHT", 5)


# ----- check runs, comments, reactions, faults -----------------------------------------------------


def test_check_run_create_then_complete(installed: Installed) -> None:
    repo = installed.gh.get_repo(REPO)
    annotation: dict[str, Any] = {
        "path": "src/app.py",
        "start_line": 16,
        "end_line": 16,
        "annotation_level": "warning",
        "message": "m",
    }
    run = repo.create_check_run(
        name="reviewbot",
        head_sha=installed.head_sha,
        status="in_progress",
        output={"title": "Reviewing", "summary": "…", "annotations": [annotation]},
    )
    assert run.status == "in_progress" and run.conclusion is None
    run.edit(conclusion="success", output={"title": "Done", "summary": "ok", "annotations": [annotation]})
    assert (run.status, run.conclusion) == ("completed", "success")
    stored = installed.fake.check_runs[run.id]
    assert len(stored["annotations"]) == 2 and len(stored["history"]) == 2
    assert stored["completed_at"] and stored["output"]["title"] == "Done"
    listed = repo.get_commit(installed.head_sha).get_check_runs()
    assert [r.id for r in listed] == [run.id]


def test_check_run_limits(installed: Installed) -> None:
    url = f"{installed.fake.base_url}/repos/{REPO}/check-runs"
    headers = {"Authorization": f"token {installed.token}"}
    sha = installed.head_sha
    many = [{"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "notice", "message": "m"}] * 51
    assert httpx.post(url, headers=headers, json={"head_sha": sha}).status_code == 422
    assert (
        httpx.post(url, headers=headers, json={"name": "n", "head_sha": sha, "status": "completed"}).status_code == 422
    )
    too_many = {"name": "n", "head_sha": sha, "output": {"title": "t", "summary": "s", "annotations": many}}
    assert httpx.post(url, headers=headers, json=too_many).status_code == 422
    assert installed.fake.check_runs == {}
    # GitHub's published description refuses two of them too (a conclusion for `completed` is in prose only).
    violations = installed.fake.take_violations()
    assert "'name' is a required property" in violations[0]
    assert "annotations" in violations[1] and "is too long" in violations[1] and len(violations) == 2


def test_rejected_check_run_update_changes_nothing(installed: Installed) -> None:
    run = installed.gh.get_repo(REPO).create_check_run(name="reviewbot", head_sha=installed.head_sha)
    response = httpx.patch(
        run.url,
        headers={"Authorization": f"token {installed.token}"},
        json={"status": "completed", "output": {"title": "t", "summary": "s"}},
    )
    assert response.status_code == 422
    violations = installed.fake.take_violations()  # the description wants a conclusion with `completed`
    assert len(violations) == 1 and "is not valid under any of the given schemas" in violations[0]
    assert installed.fake.check_runs[run.id]["status"] == "queued"
    assert len(installed.fake.check_runs[run.id]["history"]) == 1


def test_comment_and_idempotent_reaction(installed: Installed) -> None:
    command = installed.fake.add_issue_comment(REPO, 7, "/review", author="alice")
    url = f"{installed.fake.base_url}/repos/{REPO}/issues/comments/{command['id']}/reactions"
    headers = {"Authorization": f"token {installed.token}"}
    assert httpx.post(url, headers=headers, json={"content": "eyes"}).status_code == 201
    assert httpx.post(url, headers=headers, json={"content": "eyes"}).status_code == 200
    assert httpx.post(url, headers=headers, json={"content": "wave"}).status_code == 422
    assert "content: 'wave' is not one of" in installed.fake.take_violations()[0]
    assert [r["content"] for r in installed.fake.reactions[command["id"]]] == ["eyes"]
    installed.gh.get_repo(REPO).get_pull(7).create_issue_comment("Review started.")
    assert [c["user"]["login"] for c in installed.fake.issue_comments[(REPO, 7)]] == ["alice", "reviewbot-test[bot]"]


def test_injected_faults_then_recovery(installed: Installed) -> None:
    installed.fake.inject(
        "GET",
        rf"/repos/{REPO}/pulls/7",
        403,
        body={"message": "You have exceeded a secondary rate limit."},
        headers={"retry-after": "1"},
    )
    installed.fake.inject("*", r"/repos/.*/pulls/7", 502, body="<html>Bad gateway</html>")
    url = f"{installed.fake.base_url}/repos/{REPO}/pulls/7"
    headers = {"Authorization": f"token {installed.token}"}
    first = httpx.get(url, headers=headers)
    assert (first.status_code, first.headers["retry-after"]) == (403, "1")
    assert httpx.get(url, headers=headers).status_code == 502
    assert httpx.get(url, headers=headers).status_code == 200


def test_permission_and_unknown_route(installed: Installed) -> None:
    installed.fake.permissions["alice"] = "write"
    repo = installed.gh.get_repo(REPO)
    assert repo.get_collaborator_permission("alice") == "write"
    assert repo.get_collaborator_permission("mallory") == "read"
    response = httpx.get(
        f"{installed.fake.base_url}/repos/{REPO}/nothing-here", headers={"Authorization": f"token {installed.token}"}
    )
    assert (response.status_code, response.json()["message"]) == (404, "Not Found")
    assert installed.fake.take_violations() == [f"GET /repos/{REPO}/nothing-here: GitHub documents no such path"]


# ----- model ---------------------------------------------------------------------------------------


def chat(
    model: FakeModel,
    messages: list[dict[str, str]],
    *,
    affinity: str | None = None,
    token: str = "cf-test-token",
    prefix: str = "/client/v4/accounts/acc/ai/v1",
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"}
    if affinity is not None:
        headers["x-session-affinity"] = affinity
    body = {"model": "@cf/moonshotai/kimi-k2.6", "messages": messages}
    return httpx.post(f"{model.url}{prefix}/chat/completions", headers=headers, json=body)


def test_model_answers_from_script_then_default(fake_model: FakeModel) -> None:
    fake_model.script_reply("first", reasoning="thinking")
    answer = chat(fake_model, [{"role": "user", "content": "hi"}]).json()
    assert answer["object"] == "chat.completion" and answer["model"] == "@cf/moonshotai/kimi-k2.6"
    assert answer["choices"][0]["message"] == {"role": "assistant", "content": "first", "reasoning_content": "thinking",
                                               "refusal": None}  # the published output schema requires `refusal`
    fallback = chat(fake_model, [{"role": "user", "content": "hi"}], prefix="").json()
    assert fallback["choices"][0]["message"]["content"] == findings_json([])
    assert fallback["usage"]["completion_tokens"] == -(-len(findings_json([])) // 4)


def test_model_records_headers(fake_model: FakeModel) -> None:
    chat(fake_model, [{"role": "user", "content": "hi"}], affinity="pr-7")
    recorded = fake_model.requests[-1]
    assert recorded.headers["authorization"] == "Bearer cf-test-token"
    assert recorded.headers["x-session-affinity"] == "pr-7"
    assert recorded.json["messages"] == [{"role": "user", "content": "hi"}]
    assert recorded.path == "/client/v4/accounts/acc/ai/v1/chat/completions"


def test_model_prefix_cache_is_per_affinity(fake_model: FakeModel) -> None:
    system = {"role": "system", "content": "You review code. " * 200}
    first = chat(fake_model, [system, {"role": "user", "content": "file one"}], affinity="a").json()
    second = chat(fake_model, [system, {"role": "user", "content": "file two"}], affinity="a").json()
    other = chat(fake_model, [system, {"role": "user", "content": "file two"}], affinity="b").json()
    assert first["usage"]["prompt_tokens_details"]["cached_tokens"] == 0
    cached = second["usage"]["prompt_tokens_details"]["cached_tokens"]
    assert cached > 0 and cached % 64 == 0 and cached <= second["usage"]["prompt_tokens"]
    assert other["usage"]["prompt_tokens_details"]["cached_tokens"] == 0


def test_model_rejects_missing_token(fake_model: FakeModel) -> None:
    response = chat(fake_model, [{"role": "user", "content": "hi"}], token="wrong")
    assert response.status_code == 401
    assert response.json()["errors"] == [{"code": 10000, "message": "Authentication error"}]


def test_model_scripted_error_and_delay(fake_model: FakeModel) -> None:
    fake_model.script_delay(0.2)
    fake_model.script_error(
        429, {"errors": [{"message": "Capacity temporarily exceeded", "code": 3040}]}, headers={"retry-after": "2"}
    )
    started = time.monotonic()
    response = chat(fake_model, [{"role": "user", "content": "hi"}])
    assert time.monotonic() - started >= 0.2
    assert (response.status_code, response.headers["retry-after"]) == (429, "2")
    assert response.json()["errors"][0]["code"] == 3040


async def test_model_works_from_async_tests_and_streams(fake_model: FakeModel) -> None:
    fake_model.script_reply("a streamed answer that spans several chunks")
    body = {
        "model": "@cf/moonshotai/kimi-k2.6",
        "messages": [{"role": "user", "content": "x"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    async with httpx.AsyncClient(headers={"Authorization": "Bearer cf-test-token"}) as http:
        response = await http.post(f"{fake_model.url}/chat/completions", json=body)
    events = [line.removeprefix("data: ") for line in response.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == "a streamed answer that spans several chunks"
    assert chunks[-1]["usage"]["completion_tokens"] > 0
