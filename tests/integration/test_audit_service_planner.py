"""A service audit's requests as the planner builds them, against the fake GitHub and the fake model: one prefix and
one affinity for every request of an audit, a caller far away in path order shown with the code it calls, and an
incremental re-audit that parses and reviews a changed file with its callers and carries the other findings forward."""

from __future__ import annotations

import json
from typing import Any

import httpx
from redis.asyncio import Redis

from reviewbot.audit.service_state import AuditStore
from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json, verification_candidates
from tests.helpers import run_worker_until_idle
from tests.integration.test_audit import FILES, SQLI
from tests.integration.test_audit_service import answers, ask, asked, audits

VIEW = ("from zz.storage.sql import run_query\n\n\ndef order_list(request):\n"
        "    return run_query(request.GET['customer'])\n")
SQL = ("def run_query(customer):\n    sql = f\"SELECT * FROM orders WHERE customer = '{customer}'\"\n"
       "    return connection.execute(sql)\n" + "# notes on the storage layer\n" * 80)
FILLER = "def helper_{n}(value):\n    return value * {n}\n"
TREE = {"app/api/views.py": VIEW, "app/other.py": FILES, "zz/storage/sql.py": SQL,
        **{f"lib/util_{n}.py": FILLER.format(n=n) for n in range(6)}}
INJECTION = SQLI | {"path": "zz/storage/sql.py", "line": 2}
TRAVERSAL = SQLI | {"path": "app/other.py", "line": 5, "cwe": "CWE-22", "title": "The file name can leave the base"}


def audited(path: str, user: str) -> bool:
    """The file is one this part audits (numbered, in the part's own list), not context."""
    return f"### {path}\n```" in user


def by_part(request: dict[str, Any]) -> str:
    user = request["messages"][1]["content"]
    return findings_json([f for f in (INJECTION, TRAVERSAL) if audited(f["path"], user)], "Audited.")


async def planned(redis_url: str, audit_id: str) -> dict[str, Any]:
    client = Redis.from_url(redis_url)
    try:
        plan = await AuditStore(client).load_plan(audit_id)
    finally:
        await client.aclose()
    assert plan is not None
    return plan


def queued(fake_model: FakeModel) -> list[tuple[dict[str, Any], str | None]]:
    """Every request of the provider's queue, with its `x-session-affinity`, in the order it was submitted."""
    return [(body, affinity) for body, affinity, _ in fake_model.queued.values()]


async def audit_once(web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
                     fake_model: FakeModel) -> Settings:
    """The tree audited once, asked on an issue, every part answered by `by_part`."""
    settings = asked(web, env, fake_github, fake_model, answering(by_part), TREE)
    await run_worker_until_idle(settings, redis_url)
    return settings


async def test_every_request_of_a_service_audit_starts_with_the_same_bytes_and_carries_one_affinity(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    await audit_once(web, env, redis_url, fake_github, fake_model)
    [record] = await audits(redis_url)
    assert record.status == "done" and len(record.chunks) > 3
    sent = queued(fake_model)
    chunks = [body for body, _ in sent if verification_candidates(body) is None]
    assert len(chunks) == len(record.chunks) and len(sent) == len(chunks) + 2  # two findings, two checks
    plan = await planned(redis_url, record.id)
    head = plan["prefix"]["head"]
    assert "app/api/views.py" in head  # the repository overview is part of the shared head
    for body, _ in sent:  # the verifications re-send their chunk's request: the same start too
        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
        assert system == plan["prefix"]["system"] and user.startswith(head + "\n\n## Part ")
    assert len({affinity for _, affinity in sent}) == 1 and sent[0][1]
    # Workers render each request from the audit's plan, which keeps ranges and reasons, never the code itself.
    assert "SELECT * FROM orders" not in json.dumps(plan) + json.dumps(record.as_json()) and any(plan["context"])
    assert sorted(f["title"] for f in record.findings) == sorted([INJECTION["title"], TRAVERSAL["title"]])


async def test_a_chunk_is_shown_the_caller_far_away_in_path_order_that_feeds_it_input(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    await audit_once(web, env, redis_url, fake_github, fake_model)
    users = [body["messages"][1]["content"] for body, _ in queued(fake_model) if verification_candidates(body) is None]
    [storage] = [u for u in users if audited("zz/storage/sql.py", u)]
    assert not audited("app/api/views.py", storage)  # its own chunk: six files lie between them in path order
    context = storage.split("## How this part connects to the rest of the repository")[1]
    assert "### app/api/views.py" in context and "run_query(request.GET['customer'])" in context


async def test_an_incremental_audit_reviews_the_changed_file_with_its_callers_and_carries_the_rest(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = await audit_once(web, env, redis_url, fake_github, fake_model)
    before = len(fake_model.queued)

    fake_github.set_branch(REPO, "main", TREE | {"zz/storage/sql.py": SQL + "# reviewed again\n"})
    ask(web, fake_github, "@reviewbot-test audit")
    await run_worker_until_idle(settings, redis_url)
    second, first = await audits(redis_url)
    assert not first.incremental and second.incremental and second.status == "done"
    assert sorted(p for c in second.chunks for p in c.paths) == ["app/api/views.py", "zz/storage/sql.py"]
    assert second.unchanged == len(TREE) - 2 and second.related == 1
    assert first.parsed == len(TREE) and second.parsed == 1  # the facts cache knew every other blob
    users = [body["messages"][1]["content"] for body, _ in list(queued(fake_model))[before:]
             if verification_candidates(body) is None]
    assert len(users) == len(second.chunks) and not any(audited("app/other.py", u) for u in users)
    # The traversal in the untouched file is carried forward; the injection was found again and verified.
    assert sorted(f["path"] for f in second.findings) == ["app/other.py", "zz/storage/sql.py"]
    assert second.carried_count == 1 and second.candidates == 1
    assert "1 file(s) that call or are called by the changed ones are audited again" in answers(fake_github)[-1]["body"]
