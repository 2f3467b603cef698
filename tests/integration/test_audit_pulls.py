"""`@app audit` in a pull request's comment audits the pull request's head commit, against the fake GitHub, the fake
model and the real Redis: incrementally from the default branch's last audit, uploaded for `refs/pull/N/head` with
the head commit in the default branch's category (GitHub compares them in the pull request's checks), and never
mixed into what the default branch's next audit starts from or into the repository's tracking issue."""

from __future__ import annotations

import httpx

from reviewbot.audit.sarif import audit_category
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering
from tests.helpers import comment, deliver, run_worker_until_idle
from tests.integration.test_audit import DB, GUESS, SQLI
from tests.integration.test_audit_service import (
    TREE,
    ask,
    audit_settings,
    audits,
    every_chunk_reports_the_injection,
    first_audit,
)
from tests.observe_helpers import ledger_entries

PR = 31
CHANGED = {"app/db.py": DB + "\n\ndef drop(name):\n    return db.execute(f\"DROP TABLE {name}\")\n"}


async def test_an_audit_asked_on_a_pull_request_audits_its_head_and_shows_in_its_checks(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    # The default branch's audit: the pull request starts from it.
    settings, main = await first_audit(web, env, redis_url, fake_github, fake_model)

    pull = fake_github.add_pull(REPO, PR, base_files=TREE, head_files=TREE | CHANGED, base_ref="main")
    assert deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test audit")).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    audited, _ = await audits(redis_url)
    assert (audited.branch, audited.sha, audited.status) == (f"refs/pull/{PR}/head", pull["head"]["sha"],
                                                                     "done")
    assert audited.incremental and [c.paths for c in audited.chunks] == [["app/db.py"]]  # only the change
    assert audited.unchanged == 2 and [f["title"] for f in audited.findings] == [SQLI["title"]]
    # Uploaded for the pull request's head in the default branch's category: GitHub compares the two.
    upload = [u for u in fake_github.sarif_uploads.values() if u["ref"] == f"refs/pull/{PR}/head"]
    assert len(upload) == 1 and upload[0]["commit_sha"] == pull["head"]["sha"] and not upload[0]["errors"]
    assert audited.category == main.category == audit_category("main")
    assert {a["ref"] for a in fake_github.alerts(REPO, "open")} == {"refs/heads/main", f"refs/pull/{PR}/head"}
    answer = [c for c in fake_github.issue_comments[(REPO, PR)] if c["user"]["login"].endswith("[bot]")]
    assert len(answer) == 1 and f"refs/pull/{PR}/head" in answer[0]["body"] and "done**" in answer[0]["body"]

    # The default branch's next audit starts from the default branch's last audit, not from the pull request's.
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    again = (await audits(redis_url))[0]
    assert again.branch == "main" and again.incremental and again.chunks == []
    # In the usage ledger and on the dashboard, the pull request's audit names its pull request.
    assert [e.pr for e in await ledger_entries(redis_url) if e.is_audit] == [0, PR, 0]
    page = web.get("/dashboard").text
    assert f"{REPO}#{PR}</a> · audit" in page and f"{REPO} · audit" in page and "/pull/0" not in page


async def test_without_code_scanning_a_pull_requests_audit_answers_and_leaves_the_tracking_issue_alone(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.set_branch(REPO, "main", TREE)
    fake_github.code_scanning_off.add(REPO)
    fake_model.default = answering(every_chunk_reports_the_injection, {GUESS["title"]: ("refute", None)})
    pull = fake_github.add_pull(REPO, PR, base_files=TREE, head_files=TREE | CHANGED, base_ref="main")
    assert deliver(web, "issue_comment", comment(fake_github, pull, "@reviewbot-test audit")).status_code == 202
    await run_worker_until_idle(audit_settings(env), redis_url)
    [audited] = await audits(redis_url)
    assert audited.publication.where == "comment" and not audited.publication.issue_number
    assert [n for (r, n) in fake_github.issues if r == REPO] == []  # no tracking issue for a pull request
    [answer] = [c for c in fake_github.issue_comments[(REPO, PR)] if c["user"]["login"].endswith("[bot]")]
    assert SQLI["title"] in answer["body"] and "code scanning is not available here" in answer["body"]
