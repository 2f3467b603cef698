"""An audit's verifier is shown what the finder saw: the code of each candidate's flow across files, with an ideal
verifier in the fake model (it confirms what it sees the sink of, asks for the code it lacks, refutes only what it
can see). A finding in `views.py` whose sink is in `db/helpers.py` survives; one whose sink is two calls away is
verified with the code asked for; one whose sink is in a library outside the tree is published unverified, counted,
never dropped. Both the local `reviewbot audit` and the service."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from reviewbot.audit.service_record import CodeAsk
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json, verification_sections, verifying_flows
from tests.helpers import run_worker_until_idle
from tests.integration.test_audit import audit_env
from tests.integration.test_audit_service import answers, asked, audits
from tests.integration.test_cli_review import git, run_cli

VIEWS = """from db import helpers
from fastdb import vendored_exec


def search(request):
    q = request.GET["q"]
    return helpers.run_query(q)


def report(request):
    name = request.GET["name"]
    return helpers.run_report(name)


def export(request):
    table = request.GET["table"]
    return vendored_exec("SELECT * FROM %s" % table)
"""
SEARCH_SINK = """cursor.execute("SELECT * FROM items WHERE name = '%s'" % q)"""
HELPERS = f"""from db.raw import execute_raw


def run_query(q):
    cursor = connection.cursor()
    {SEARCH_SINK}
    return cursor.fetchall()


def run_report(name):
    return execute_raw(name)
"""
REPORT_SINK = """cursor.execute("SELECT * FROM reports WHERE owner = '%s'" % name)"""
RAW = f"def execute_raw(name):\n    cursor = connection.cursor()\n    {REPORT_SINK}\n"
TREE = {"views.py": VIEWS, "db/helpers.py": HELPERS, "db/raw.py": RAW}
BASE = {"start_line": None, "side": "RIGHT", "severity": "critical", "category": "security", "body": "Parameterise.",
        "suggestion": None, "confidence": 0.9, "cwe": "CWE-89", "path": "views.py"}
SEARCH = BASE | {"line": 7, "title": "The search term is formatted into SQL", "evidence": [
    {"path": "views.py", "line": 6, "role": "source", "note": "the query string"},
    {"path": "db/helpers.py", "line": 6, "role": "sink", "note": "formatted into the SQL text"}]}
REPORT = BASE | {"line": 12, "title": "The report owner is formatted into SQL", "evidence": []}
EXPORT = BASE | {"line": 17, "title": "The table name is formatted into SQL", "evidence": []}
SINKS = {SEARCH["title"]: ("run_query", SEARCH_SINK), REPORT["title"]: ("execute_raw", REPORT_SINK),
         EXPORT["title"]: ("vendored_exec", "def vendored_exec(")}


def finder(request: dict[str, Any]) -> str:
    """Reports the three injections where views.py is audited (its numbered listing), nothing elsewhere."""
    own = "### views.py\n```" in request["messages"][1]["content"]
    return findings_json([SEARCH, REPORT, EXPORT] if own else [], "Audited.")


def verifications(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [b for b in bodies if verification_sections(b) is not None]


def assert_flows_were_shown(bodies: list[dict[str, Any]]) -> None:
    """One request with the three candidates, each after the owner chunk's request as it was sent (the cache
    serves it), the callee's code in its own section; one follow-up for the candidate that asked for code."""
    first, again = verifications(bodies)
    [chunk] = [b for b in bodies
               if verification_sections(b) is None and "### views.py\n```" in b["messages"][1]["content"]]
    assert first["messages"][:2] == chunk["messages"]
    sections = {title: shown for _, title, shown in verification_sections(first) or []}
    assert SEARCH_SINK in sections[SEARCH["title"]] and "def run_report(" in sections[REPORT["title"]]
    assert "db/raw.py" not in sections[REPORT["title"]]  # two calls away: not in the first request
    [(_, title, shown)] = verification_sections(again) or []
    assert title == REPORT["title"] and REPORT_SINK in shown and again["messages"][:2] == chunk["messages"]


def test_the_local_audit_verifies_a_flow_across_modules_and_counts_what_needed_more_code(
        tmp_path: Path, fake_model: FakeModel) -> None:
    root = tmp_path / "project"
    for path, text in TREE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    fake_model.default = verifying_flows(finder, SINKS)
    env = audit_env(fake_model, tmp_path / "data")
    report = tmp_path / "audit.json"
    done = run_cli(["audit", "--repo", str(root), "--report", str(report), "--chunk-tokens", "30"], env, tmp_path)
    assert done.returncode == 0, done.stderr

    result = json.loads(report.read_text())
    found = {f["title"]: f for f in result["findings"]}
    assert set(found) == {SEARCH["title"], REPORT["title"], EXPORT["title"]} and result["dropped"] == []
    assert [(e["path"], e["role"]) for e in found[SEARCH["title"]]["evidence"]] == [("views.py", "source"),
                                                                                    ("db/helpers.py", "sink")]
    assert ("db/helpers.py", 10) in [(e["path"], e["line"]) for e in found[REPORT["title"]]["evidence"]]
    assert found[EXPORT["title"]].get("unverified") and not found[SEARCH["title"]].get("unverified")
    assert (result["more_code"], result["lacking_code"]) == (1, 1)
    assert_flows_were_shown([c["requests"][0] for c in fake_model.async_calls if "requests" in c])
    markdown = run_cli(["audit", "--repo", str(root), "--format", "markdown"], env, tmp_path).stdout
    assert "1 verified with more code, 1 published unverified for lack of code." in markdown


async def test_the_service_verifies_a_flow_across_modules_and_its_answer_counts_what_needed_more_code(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = asked(web, env, fake_github, fake_model, verifying_flows(finder, SINKS), TREE)
    await run_worker_until_idle(settings, redis_url)
    [record] = await audits(redis_url)
    assert record.status == "done" and record.dropped == []
    found = {f["title"]: f for f in record.findings}
    assert set(found) == {SEARCH["title"], REPORT["title"], EXPORT["title"]}
    assert [(e["path"], e["role"]) for e in found[SEARCH["title"]]["evidence"]] == [("views.py", "source"),
                                                                                    ("db/helpers.py", "sink")]
    assert found[EXPORT["title"]].get("unverified") and not found[REPORT["title"]].get("unverified")
    assert sorted(record.code_asks, key=lambda a: a.line) == [
        CodeAsk(REPORT["title"], "views.py", 12, ("execute_raw",), "more code"),
        CodeAsk(EXPORT["title"], "views.py", 17, ("vendored_exec",), "unverified")]
    assert "1 verified with more code, 1 published unverified for lack of code." in answers(fake_github)[-1]["body"]
    assert_flows_were_shown([body for body, _, _ in fake_model.queued.values()])
