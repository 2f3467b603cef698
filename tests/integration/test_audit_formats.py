"""`reviewbot audit --format sarif|json|markdown` in the local mode: the SARIF report is the one the service
uploads (valid, fingerprinted, named after the branch and commit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from jsonschema import Draft202012Validator

from reviewbot.audit.answer_schema import AUDIT_FORMATS
from reviewbot.inference.factory import model_client
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.settings import Settings
from tests.fakes.model import FakeModel, answering, findings_json, verification_candidates
from tests.gfm import assert_safe_for_github, assert_safe_sarif_message
from tests.integration.test_audit import SQLI, audit_env, by_chunk, make_tree
from tests.integration.test_cli_review import git, run_cli

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "specs" / "sarif" / "sarif-2.1.0.json").read_text())


def test_the_local_audit_writes_sarif_json_or_markdown(tmp_path: Path, fake_model: FakeModel) -> None:
    root = tmp_path / "project"
    root.mkdir()
    make_tree(root)
    git(root, "init", "-q", "-b", "trunk")
    (root / ".gitignore").write_text("node_modules/\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    fake_model.default = answering(by_chunk)
    env = audit_env(fake_model, tmp_path / "data")
    done = run_cli(["audit", "--repo", str(root), "--format", "sarif", "--chunk-tokens", "30"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert list(Draft202012Validator(SCHEMA).iter_errors(document)) == []
    run = document["runs"][0]
    assert run["automationDetails"]["id"] == "reviewbot/audit/trunk/all/"
    assert {r["ruleId"] for r in run["results"]} == {"reviewbot/cwe-89", "reviewbot/cwe-79"}
    sql = next(r for r in run["results"] if r["ruleId"] == "reviewbot/cwe-89")
    assert sql["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "app/db.py"
    assert len(sql["partialFingerprints"]["reviewbotCodeKey/v1"]) == 16

    report = tmp_path / "audit.json"  # the saved state answers again, in another format, without the model
    again = run_cli(["audit", "--repo", str(root), "--report", str(report)], env, tmp_path)
    assert again.returncode == 0 and json.loads(report.read_text())["findings"]
    markdown = run_cli(["audit", "--repo", str(root), "--format", "markdown"], env, tmp_path)
    assert markdown.stdout.startswith("# Security audit of")


VIEWS = "from app.db import find\n\n\ndef search(conn, request):\n    return find(conn, request.args['name'])\n"


def names_its_source(request: dict[str, Any]) -> str:
    """The injection with its evidence: where the name enters (another file) and the sink, plus lines no audit
    may publish: outside the tree, a URL, past a file's end, an ignored file; a note that pings and links."""
    user = request["messages"][1]["content"]
    evidence = [{"path": "app/views.py", "line": 5, "role": "source",
                 "note": "name from the query string, cc @admin, see [docs](https://evil.example/x)"},
                {"path": "app/db.py", "line": 5, "role": "sink", "note": "formatted into the SQL text"},
                {"path": "../etc/passwd", "line": 1, "role": "step", "note": "x"},
                {"path": "https://evil.example/x.py", "line": 1, "role": "step", "note": "x"},
                {"path": "app/views.py", "line": 999, "role": "step", "note": "x"},
                {"path": "node_modules/dep/index.js", "line": 1, "role": "step", "note": "x"}]
    return findings_json([{**SQLI, "evidence": evidence}] if "### app/db.py\n" in user else [], "Audited.")


def test_the_models_evidence_in_another_file_is_a_related_location_and_a_code_flow(
        tmp_path: Path, fake_model: FakeModel) -> None:
    root = tmp_path / "project"
    root.mkdir()
    make_tree(root)
    (root / "app" / "views.py").write_text(VIEWS)
    git(root, "init", "-q", "-b", "trunk")
    (root / ".gitignore").write_text("node_modules/\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    fake_model.constrained = True  # held to the request's schema: evidence arrives only because the audit asks
    fake_model.default = answering(names_its_source)
    env = audit_env(fake_model, tmp_path / "data")
    done = run_cli(["audit", "--repo", str(root), "--format", "sarif", "--chunk-tokens", "30"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    asked = [c["requests"][0] for c in fake_model.async_calls if "requests" in c]
    assert all("evidence" in json.dumps(r["response_format"]) for r in asked
               if r["response_format"].get("json_schema", {}).get("name") == "audit")

    document = json.loads(done.stdout)
    assert list(Draft202012Validator(SCHEMA).iter_errors(document)) == []
    [sql] = document["runs"][0]["results"]
    assert sql["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "app/db.py"
    assert [(r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"]["startLine"])
            for r in sql["relatedLocations"]] == [("app/views.py", 5)]
    flow = sql["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [(s["location"]["physicalLocation"]["artifactLocation"]["uri"],
             s["location"]["physicalLocation"]["region"]["startLine"]) for s in flow] == \
        [("app/views.py", 5), ("app/db.py", 5)]
    for text in [sql["message"]["text"], sql["relatedLocations"][0]["message"]["text"],
                 *(s["location"]["message"]["text"] for s in flow)]:
        assert_safe_sarif_message(text)
    assert not {"passwd", "evil.example", "node_modules", "999"} & set(json.dumps(document).split('"'))
    assert "passwd" not in done.stdout and "evil.example" not in done.stdout and "node_modules" not in done.stdout

    report = run_cli(["audit", "--repo", str(root), "--format", "markdown"], env, tmp_path).stdout
    assert "- source `app/views.py:5`: name from the query string" in report and "- sink `app/db.py:5`" in report
    reported = sum(1 for r in asked if "### app/db.py\n" in r["messages"][1]["content"]
                   and verification_candidates(r) is None)  # its own chunk, and one showing it as context
    assert f"{4 * reported} evidence line(s) the model gave were left out" in report and "passwd" not in report
    assert_safe_for_github(report.split("## Findings")[1], repo="owner/repo")  # (the header names the model)


async def test_a_model_held_to_the_schema_gives_evidence_to_an_audit_and_never_to_a_review(
        settings: Settings, fake_model: FakeModel) -> None:
    lines = [{"path": "app/views.py", "line": n, "role": "step", "note": ""} for n in range(1, 9)]
    fake_model.constrained = True
    fake_model.default = answering(findings_json([{**SQLI, "evidence": lines}]))
    prompt = [{"role": "system", "content": "Audit."}, {"role": "user", "content": "### app/db.py"}]
    async with httpx.AsyncClient() as http:
        review = await StructuredReviewer(model_client(settings, http)).review(prompt, "ses_review")
        audit = await StructuredReviewer(model_client(settings, http), formats=AUDIT_FORMATS).review(prompt, "ses_a")
    assert review.output.findings[0].evidence == ()  # the review's schema has no room for it
    assert [e.line for e in audit.output.findings[0].evidence] == [1, 2, 3, 4, 5, 6]  # the audit's: at most 6
    sent = [r.json["response_format"]["json_schema"] for r in fake_model.requests]
    assert [s["name"] for s in sent] == ["review", "audit"] and "evidence" not in json.dumps(sent[0])


def test_the_sarif_of_a_local_audit_with_a_failed_part_is_marked_partial(tmp_path: Path,
                                                                          fake_model: FakeModel) -> None:
    root = tmp_path / "project"
    root.mkdir()
    make_tree(root)
    (root / ".gitignore").write_text("node_modules/\n")
    fake_model.default = answering(by_chunk)
    fake_model.refuse_submission = lambda request: "### web/server.ts\n" in request["messages"][1]["content"]
    env = audit_env(fake_model, tmp_path / "data")
    done = run_cli(["audit", "--repo", str(root), "--format", "sarif", "--chunk-tokens", "30"], env, tmp_path)
    assert "failed" in done.stderr
    run = json.loads(done.stdout)["runs"][0]
    assert list(Draft202012Validator(SCHEMA).iter_errors({"version": "2.1.0", "runs": [run]})) == []
    [invocation] = run["invocations"]  # not a clean run: what was not audited is named
    assert invocation["executionSuccessful"] is False
    assert [n["message"]["text"].split(" not audited")[0] for n in invocation["toolExecutionNotifications"]] == [
        "web/server.ts"]
