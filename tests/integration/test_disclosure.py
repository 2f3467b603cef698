"""Security findings are disclosed only where GitHub itself would show them (issue 30), end to end against the fake
GitHub, the fake model and the real Redis: a public and a private repository audited alike, and what each one's
readers see in every comment, issue, advisory and check run."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import httpx
import pytest

from reviewbot.audit.disclosure import security_tab_url
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json
from tests.gfm import assert_safe_for_github, render
from tests.helpers import BASE_CALC, HEAD_CALC, bug_finding, comment, deliver, payload, run_worker_until_idle
from tests.integration.test_audit import DB, GUESS, SQLI
from tests.integration.test_audit_service import (
    ISSUE,
    TREE,
    audit_settings,
    audits,
    every_chunk_reports_the_injection,
)

PUBLIC = "acme/gadgets"
PRIVATE = REPO
# What would describe the injection: its file, line, title or class (the CWE's number or its name).
DESCRIBES = re.compile(r"app/db\.py|db\.py|line 5\b|:5\b|formatted into SQL|CWE-89|SQL injection", re.IGNORECASE)


def ask_in(web: httpx.Client, github: FakeGitHub, repo: str, body: str, login: str = "maintainer-mo") -> None:
    """`body` as a new comment on issue ISSUE of `repo`, delivered as GitHub would."""
    github.permissions.setdefault(login, "write")
    stored = github.add_issue_comment(repo, ISSUE, body, author=login)
    data = payload("issue_comment.created")
    del data["issue"]["pull_request"]
    data["issue"]["number"] = ISSUE
    data["repository"] |= {"full_name": repo, "name": repo.split("/")[1], "private": repo != PUBLIC}
    data["comment"] |= {"id": stored["id"], "body": body, "author_association": "MEMBER",
                        "user": {"login": login, "id": 99, "type": "User"}}
    assert deliver(web, "issue_comment", data).status_code == 202


def bot_answers(github: FakeGitHub, repo: str) -> list[str]:
    return [c["body"] for (r, _), comments in github.issue_comments.items() if r == repo for c in comments
            if c["user"]["login"].endswith("[bot]")]


def public_texts(github: FakeGitHub, repo: str) -> list[str]:
    """Everything the App posted on `repo` that the repository's readers see: comments, issues, reviews and check
    runs (a draft advisory is seen by admins only; code-scanning alerts by writers only)."""
    issues = [f"{i['title']}\n{i['body']}" for (r, _), i in github.issues.items() if r == repo
              and i["user"]["login"].endswith("[bot]")]
    reviews = [json.dumps(v) for (r, _), posted in github.reviews.items() if r == repo for v in posted]
    checks = [json.dumps(c) for c in github.check_runs.values() if c["repo"] == repo]
    return bot_answers(github, repo) + issues + reviews + checks


def two_repositories(github: FakeGitHub) -> None:
    """The installation's private repository (no Code Security: its upload is refused) and a public one."""
    github.installations[INSTALLATION].repos.add(PUBLIC)
    github.make_public(PUBLIC)
    github.code_scanning_off.add(PRIVATE)
    github.sarif_pending_polls = 0
    for repo in (PUBLIC, PRIVATE):
        github.set_branch(repo, "main", TREE)
        github.add_issue(repo, ISSUE)


async def test_a_public_repositorys_audits_name_no_file_line_title_or_cwe_outside_code_scanning(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    two_repositories(fake_github)
    fake_model.default = answering(every_chunk_reports_the_injection, {GUESS["title"]: ("refute", None)})
    settings = audit_settings(env)
    for repo in (PUBLIC, PRIVATE):
        ask_in(web, fake_github, repo, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)

    # Public: the finding is a code-scanning alert (writers see it); the answer counts it and links the list.
    by_repo = {a.repo: a for a in await audits(redis_url)}
    assert by_repo[PUBLIC].publication.where == "code-scanning"
    [alert] = fake_github.alerts(PUBLIC, "open")
    assert alert["path"] == "app/db.py" and alert["start_line"] == 5
    [answer] = bot_answers(fake_github, PUBLIC)
    tab = security_tab_url(f"https://github.com/{PUBLIC}")
    assert tab == f"https://github.com/{PUBLIC}/security/code-scanning?query=is%3Aopen+tool%3Areviewbot"
    assert "🔴 **Critical** 1" in answer
    assert "1 finding(s) are not described here because this repository is public" in answer
    assert f'<a href="{tab.replace("&", "&amp;")}">' in render(answer)
    assert_safe_for_github(answer, repo=PUBLIC)

    # Private: today's listing stays, in the answer and in the tracking issue.
    assert by_repo[PRIVATE].publication.where == "issue"
    [private_answer] = bot_answers(fake_github, PRIVATE)
    assert "`app/db.py` line 5" in private_answer and SQLI["title"] in private_answer
    [tracking] = [i for (r, n), i in fake_github.issues.items() if r == PRIVATE and n != ISSUE]
    assert SQLI["title"] in tracking["body"] and "CWE-89" in tracking["body"]

    # The public repository's installation loses code scanning and gains advisories: the next audit goes to one
    # private draft advisory, and its answer says what to enable.
    permissions = fake_github.installations[INSTALLATION].permissions
    del permissions["security_events"]
    permissions["repository_advisories"] = "write"
    ask_in(web, fake_github, PUBLIC, "@reviewbot-test audit full")
    await run_worker_until_idle(settings, redis_url)
    [advisory] = fake_github.repo_advisories(PUBLIC)
    assert advisory["state"] == "draft" and SQLI["title"] in advisory["description"]
    assert advisory["cwe_ids"] == ["CWE-89"] and advisory["severity"] == "critical"
    refused = bot_answers(fake_github, PUBLIC)[-1]
    assert "private draft security advisory" in refused and "`security_events: write`" in refused
    assert not [n for (r, n) in fake_github.issues if r == PUBLIC and n != ISSUE]  # never a public issue

    # What the public repository's readers see names neither the file, the line, the title nor the class.
    texts = public_texts(fake_github, PUBLIC)
    assert len(texts) == 2  # one answer per audit, edited from its plan to its result
    assert [m.group(0) for t in texts for m in DESCRIBES.finditer(t)] == []
    # The private repository's readers still get the listing (its tracking issue and answer).
    assert any(DESCRIBES.search(t) for t in public_texts(fake_github, PRIVATE))
    # Nothing at INFO in the logs carries a finding's text either.
    for record in caplog.records:
        if record.levelno <= logging.INFO:
            line = json.dumps({k: str(v) for k, v in record.__dict__.items()}) + record.getMessage()
            assert SQLI["title"] not in line and SQLI["body"] not in line, line



PR = 31
CHANGED = {"app/db.py": DB + "\n\ndef drop(name):\n    return db.execute(f\"DROP TABLE {name}\")\n"}
DROP = {**SQLI, "line": 9, "title": "Table name is formatted into DDL", "body": "Quote the identifier."}


def injections_old_and_new(request: dict[str, Any]) -> str:
    """The injection the default branch has (line 5) wherever it is shown, and the pull request's own (line 9)
    where the chunk shows the new function."""
    user = request["messages"][1]["content"]
    return findings_json([SQLI] + ([DROP] if "DROP TABLE" in user else []), "Audited.")


async def test_a_public_pull_requests_audit_describes_only_findings_on_the_lines_it_changes(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.make_public(REPO)
    fake_github.set_branch(REPO, "main", TREE)
    fake_github.sarif_pending_polls = 0
    fake_model.default = answering(injections_old_and_new, {GUESS["title"]: ("refute", None)})
    pull = fake_github.add_pull(REPO, PR, base_files=TREE, head_files=TREE | CHANGED, base_ref="main")
    assert deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test audit")).status_code == 202
    await run_worker_until_idle(audit_settings(env), redis_url)

    [audited] = await audits(redis_url)
    assert sorted(f["title"] for f in audited.findings) == sorted([SQLI["title"], DROP["title"]])
    [answer] = [c["body"] for c in fake_github.issue_comments[(REPO, PR)] if c["user"]["login"].endswith("[bot]")]
    # The pull request's own line is described (the pull request shows it, and GitHub annotates it there) ...
    assert f"`app/db.py` line 9: {DROP['title']} (CWE-89)" in answer
    # ... the code it does not touch is counted, and left to the Security tab's list of the pull request's alerts.
    assert SQLI["title"] not in answer and "line 5" not in answer
    assert "1 finding(s) on code this pull request does not change are not described here" in answer
    assert f"query=is%3Aopen+tool%3Areviewbot+pr%3A{PR}" in answer
    assert_safe_for_github(answer, repo=REPO)
    assert not [n for (r, n) in fake_github.issues if r == REPO]  # and no issue
    assert audited.in_diff == ["app/db.py:9"]  # what the record keeps for the answer's later edits


def calc_pull(github: FakeGitHub, number: int) -> dict[str, Any]:
    """A pull request that changes app/calc.py and leaves app/db.py (with its injection) untouched."""
    files = {"app/db.py": DB}
    return github.add_pull(REPO, number, base_files={"app/calc.py": BASE_CALC, **files},
                           head_files={"app/calc.py": HEAD_CALC, **files}, title="Rewrite total")


async def test_a_security_review_of_a_public_repository_counts_its_findings_outside_the_diff(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    inside = bug_finding(line=4, category="security", severity="major", cwe="CWE-682",
                         title="Price is summed without a type check", suggestion=None)
    fake_model.default = answering(findings_json([inside, SQLI]))
    seen = {}
    for number, public in ((7, False), (8, True)):
        if public:
            fake_github.make_public(REPO)
        pull = calc_pull(fake_github, number)
        body = comment(fake_github, pull, "@reviewbot-test security-review")
        assert deliver(web, "issue_comment", body).json()["status"] == "queued"
        await run_worker_until_idle(settings, redis_url)
        [posted] = fake_github.reviews[(REPO, number)]
        check = [c for c in fake_github.check_runs.values() if c["head_sha"] == pull["head"]["sha"]][-1]
        seen[public] = (posted, check)

    private_review, _ = seen[False]
    assert "#### Outside the diff" in private_review["body"] and SQLI["title"] in private_review["body"]
    public_review, public_check = seen[True]
    [inline] = public_review["comments"]  # on the pull request's own line: described, as GitHub would show it
    assert inline["line"] == 4 and inside["title"] in inline["body"]
    for text in (public_review["body"], json.dumps(public_check["output"])):
        assert "1 finding(s) (1 critical) on code this pull request does not change are not described" in text
        assert [m.group(0) for m in DESCRIBES.finditer(text)] == []
    assert_safe_for_github(public_review["body"], repo=REPO)
