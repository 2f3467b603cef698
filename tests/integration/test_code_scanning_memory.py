"""One memory with code scanning, end to end (fake GitHub, fake model, real Redis, the worker): a review does not
post again what an audit already raised as an alert, names it by number only on a public repository, says which
alerts a pull request may fix; an alert dismissed in GitHub's interface holds in the next audit and review, and
reopening it undoes that."""

from __future__ import annotations

from typing import Any

import httpx
from redis.asyncio import Redis

from reviewbot.settings import Settings
from reviewbot.state.learnings_store import Learnings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json
from tests.helpers import comment, deliver, payload, run_worker_until_idle
from tests.integration.test_audit import DB, SQLI
from tests.integration.test_audit_service import TREE, answers, ask, audits, first_audit

# The pull request documents find(): the injection moves from line 5 to line 6, its code unchanged.
DOCUMENTED = DB.replace("def find(conn, name):\n", "def find(conn, name):\n    \"\"\"One user by name.\"\"\"\n")
SAFE = DB.replace("f\"SELECT * FROM users WHERE name = '{name}'\")", "\"SELECT * FROM users WHERE name = ?\", (name,))")
MOVED = {**SQLI, "line": 6}


def review_pull(github: FakeGitHub, head: str, number: int = 7) -> dict[str, Any]:
    return github.add_pull(REPO, number, base_files=TREE, head_files=TREE | {"app/db.py": head},
                           title="Touch the database code", head_ref=f"feature-{number}")


async def reviewed(web: httpx.Client, settings: Settings, redis_url: str, github: FakeGitHub,
                   fake_model: FakeModel, head: str, findings: list[dict[str, Any]],
                   number: int = 7, security: bool = False) -> dict[str, Any]:
    """A pull request changing app/db.py to `head`, reviewed (opened, or `security-review` asked) with `findings`
    as the model's answer: its review."""
    fake_model.default = answering(findings_json(findings, "Reviewed."))
    pull = review_pull(github, head, number)
    if security:
        asked = deliver(web, "issue_comment", comment(github, pull, "@reviewbot-test security-review"))
        assert asked.json()["status"] == "queued"
    else:
        assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    [review] = github.reviews[(REPO, number)]
    return review


def decided(web: httpx.Client, github: FakeGitHub, number: int, *, by: str, reason: str | None) -> None:
    """A person dismisses (or reopens) the alert in GitHub's interface; GitHub delivers the webhook."""
    body = github.decide_alert(REPO, number, by=by, reason=reason, installation_id=INSTALLATION)
    answer = deliver(web, "code_scanning_alert", body)
    assert answer.status_code == 202 and answer.json()["status"] == "queued", answer.text


async def remembered(redis_url: str) -> list[str]:
    client = Redis.from_url(redis_url)
    try:
        return [s.key for s in await Learnings(client).of(REPO)]
    finally:
        await client.aclose()


async def test_a_known_alert_is_not_posted_again_and_a_public_review_names_it_by_number_only(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings, _ = await first_audit(web, env, redis_url, fake_github, fake_model)
    [alert] = fake_github.alerts(REPO, "open")
    fake_github.make_public(REPO)

    review = await reviewed(web, settings, redis_url, fake_github, fake_model, DOCUMENTED, [MOVED])
    assert review["comments"] == []  # the injection is the alert, moved a line down: not posted as new
    body = review["body"]
    assert f"already open as code-scanning alert {alert['number']}; not posted again" in body
    # Public: the alert's number, never what it is about or a link to the Security tab.
    assert SQLI["title"] not in body and "/security/code-scanning/" not in body
    reads = [c for c in fake_github.requests if c.method == "GET" and c.path.endswith("/code-scanning/alerts")]
    assert [(c.query["tool_name"], c.query["ref"], c.query["state"]) for c in reads] == [
        ("reviewbot", "refs/heads/main", "open")]


async def test_a_private_review_describes_the_alert_and_says_which_one_a_rewrite_fixes(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings, _ = await first_audit(web, env, redis_url, fake_github, fake_model)
    [alert] = fake_github.alerts(REPO, "open")
    known = await reviewed(web, settings, redis_url, fake_github, fake_model, DOCUMENTED, [MOVED])
    assert known["comments"] == [] and SQLI["title"] in known["body"]
    page = f"https://github.com/{REPO}/security/code-scanning/{alert['number']}"
    assert f"[code-scanning alert {alert['number']}]({page})" in known["body"]

    # A pull request that rewrites the query, reviewed without finding it again: not a security review, so the
    # review says "may fix", not "fixes".
    fixing = await reviewed(web, settings, redis_url, fake_github, fake_model, SAFE, [], number=8)
    assert f"May fix [code-scanning alert {alert['number']}]" in fixing["body"]
    assert "Fixes code-scanning" not in fixing["body"]
    # A security review that read the file and did not find it again: verified.
    checked = await reviewed(web, settings, redis_url, fake_github, fake_model, SAFE, [], number=9, security=True)
    assert f"Fixes [code-scanning alert {alert['number']}]" in checked["body"]


async def test_a_dismissal_in_github_holds_in_the_next_audit_and_review_and_reopening_undoes_it(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings, first = await first_audit(web, env, redis_url, fake_github, fake_model)
    [alert] = fake_github.alerts(REPO, "open")
    fake_github.permissions["maintainer-mo"] = "maintain"
    decided(web, fake_github, alert["number"], by="maintainer-mo", reason="false positive")
    await run_worker_until_idle(settings, redis_url)
    assert await remembered(redis_url) == [f"alert:{alert['number']}"]

    # The next audit finds the injection again: uploaded (GitHub keeps the alert dismissed), raised nowhere as new.
    model = fake_model.default
    ask(web, fake_github, "@reviewbot-test audit full")
    await run_worker_until_idle(settings, redis_url)
    second = (await audits(redis_url))[0]
    assert second.id != first.id and second.publication is not None
    assert second.publication.results == 0 and second.publication.dismissed == ["app/db.py:5"]
    assert [a["state"] for a in fake_github.alerts(REPO)] == ["dismissed"]  # no new alert either
    answer = answers(fake_github)[-1]["body"]
    assert "1 more finding(s) are code-scanning alerts people dismissed" in answer
    assert SQLI["title"] not in answer and "published to code scanning: 0 alert(s)" in answer

    # The next review holds the finding back, saying who dismissed which alert and how to undo it.
    review = await reviewed(web, settings, redis_url, fake_github, fake_model, DOCUMENTED, [MOVED])
    assert review["comments"] == []
    assert f"code-scanning alert {alert['number']} was dismissed as `false positive` by `maintainer-mo`" in \
        review["body"]

    # Reopened in GitHub's interface: forgotten, and the next audit counts it again.
    decided(web, fake_github, alert["number"], by="maintainer-mo", reason=None)
    await run_worker_until_idle(settings, redis_url)
    assert await remembered(redis_url) == []
    fake_model.default = model
    ask(web, fake_github, "@reviewbot-test audit full")
    await run_worker_until_idle(settings, redis_url)
    third = (await audits(redis_url))[0]
    assert third.publication is not None and third.publication.results == 1 and third.publication.dismissed == []
    assert SQLI["title"] in answers(fake_github)[-1]["body"]


async def test_a_writers_dismissal_stays_in_github_and_other_tools_alerts_are_ignored(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings, _ = await first_audit(web, env, redis_url, fake_github, fake_model)
    [alert] = fake_github.alerts(REPO, "open")
    # GitHub lets writers dismiss; a security finding is remembered for the repository only by a maintainer.
    fake_github.permissions["writer-wu"] = "write"
    decided(web, fake_github, alert["number"], by="writer-wu", reason="won't fix")
    await run_worker_until_idle(settings, redis_url)
    assert await remembered(redis_url) == []

    other = fake_github.decide_alert(REPO, alert["number"], by="maintainer-mo", reason="used in tests",
                                     installation_id=INSTALLATION)
    other["alert"]["tool"]["name"] = "CodeQL"
    answer = deliver(web, "code_scanning_alert", other)
    assert answer.status_code == 202 and answer.json()["status"] == "ignored"
