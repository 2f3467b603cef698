"""A copy-pasted injection through the service audit: two uploaded results (`hash:1`, `hash:2`), two alerts."""

from __future__ import annotations

from typing import Any

import httpx

from reviewbot.audit.sarif_results import FINGERPRINT_KEY
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json
from tests.helpers import run_worker_until_idle
from tests.integration.test_audit import SQLI
from tests.integration.test_audit_service import TREE, ask, asked, audits

QUERY = "    return conn.execute(\"SELECT * FROM users WHERE name = '%s'\" % name)\n"
SAFE = "    return conn.execute(\"SELECT * FROM users WHERE name = ?\", (name,))\n"


def db(first: str = QUERY, second: str = QUERY) -> str:
    return f"import sqlite3\n\n\ndef find(conn, name):\n{first}\n\ndef find_again(conn, name):\n    # copy\n{second}"


def reports(*lines: int) -> Any:
    """A model that reports the injection at `lines` of app/db.py wherever it is shown that file."""
    def answer(request: dict[str, Any]) -> str:
        shown = "### app/db.py\n" in request["messages"][1]["content"]
        return findings_json([{**SQLI, "line": line} for line in lines if shown], "Audited.")
    return answering(answer)


def uploaded(github: FakeGitHub, index: int) -> list[dict[str, Any]]:
    upload = list(github.sarif_uploads.values())[index]
    assert not upload["errors"]
    return list(upload["document"]["runs"][0]["results"])


async def test_two_copies_of_one_injection_are_two_alerts_and_fixing_one_closes_only_its_own(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.sarif_pending_polls = 0
    settings = asked(web, env, fake_github, fake_model, reports(5, 10), TREE | {"app/db.py": db()})
    await run_worker_until_idle(settings, redis_url)
    [first] = await audits(redis_url)
    results = uploaded(fake_github, 0)
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results] == [5, 10]
    hashes = [r["partialFingerprints"]["primaryLocationLineHash"] for r in results]
    digest = hashes[0].split(":")[0]
    assert hashes == [f"{digest}:1", f"{digest}:2"]
    assert len({r["partialFingerprints"][FINGERPRINT_KEY] for r in results}) == 2
    assert first.publication is not None and first.publication.results == 2
    opened = sorted(fake_github.alerts(REPO, "open"), key=lambda a: a["start_line"])
    assert [(a["path"], a["start_line"]) for a in opened] == [("app/db.py", 5), ("app/db.py", 10)]

    # The second copy is fixed: an incremental audit re-reads app/db.py; the first copy's alert stays, the
    # second's is closed.
    fake_github.set_branch(REPO, "main", TREE | {"app/db.py": db(second=SAFE)})
    fake_model.default = reports(5)
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    second = (await audits(redis_url))[0]
    assert second.incremental and second.publication is not None and second.publication.results == 1
    [kept] = fake_github.alerts(REPO, "open")
    assert (kept["number"], kept["start_line"]) == (opened[0]["number"], 5)
    assert [a["number"] for a in fake_github.alerts(REPO, "fixed")] == [opened[1]["number"]]


async def test_fixing_the_first_copy_leaves_one_open_alert_on_the_second(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.sarif_pending_polls = 0
    settings = asked(web, env, fake_github, fake_model, reports(5, 10), TREE | {"app/db.py": db()})
    await run_worker_until_idle(settings, redis_url)
    digest = uploaded(fake_github, 0)[0]["partialFingerprints"]["primaryLocationLineHash"].split(":")[0]
    opened = sorted(fake_github.alerts(REPO, "open"), key=lambda a: a["start_line"])

    fake_github.set_branch(REPO, "main", TREE | {"app/db.py": db(first=SAFE)})
    fake_model.default = reports(10)
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    [left] = uploaded(fake_github, 1)
    # As CodeQL counts: the second copy is now the file's only one, `:1`; GitHub keeps that alert open, moved to
    # the second copy's line, and closes `:2`. One alert is open, on the copy that is still vulnerable.
    assert left["partialFingerprints"]["primaryLocationLineHash"] == f"{digest}:1"
    [kept] = fake_github.alerts(REPO, "open")
    assert (kept["number"], kept["start_line"]) == (opened[0]["number"], 10)
    assert [a["number"] for a in fake_github.alerts(REPO, "fixed")] == [opened[1]["number"]]
