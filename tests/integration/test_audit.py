"""`reviewbot audit` against the fake model's asynchronous queue: chunks, report, and resuming after a kill."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.conftest import MODEL_TOKEN
from tests.fakes.model import FakeModel, answering, findings_json
from tests.integration.test_cli_review import git, run_cli

DB = ("import sqlite3\n\n\ndef find(conn, name):\n"
      "    return conn.execute(f\"SELECT * FROM users WHERE name = '{name}'\")\n")
FILES = "import os\n\n\ndef read(base, name):\n    return open(os.path.join(base, name)).read()\n"
SERVER = "export function greet(name: string): string {\n  return `<h1>${name}</h1>`;\n}\n"
SQLI = {"path": "app/db.py", "line": 5, "start_line": None, "side": "RIGHT", "severity": "critical",
        "category": "security", "title": "User input is formatted into SQL", "body": "Use a parameter.",
        "suggestion": None, "confidence": 0.9, "cwe": "CWE-89"}
GUESS = {**SQLI, "path": "web/server.ts", "line": 2, "severity": "major", "cwe": "79",
         "title": "Name is written into HTML unescaped"}


def make_tree(root: Path) -> None:
    for path, text in {"app/db.py": DB, "app/files.py": FILES, "web/server.ts": SERVER, "README.md": "# demo\n",
                       "node_modules/dep/index.js": "module.exports = 1;\n"}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def by_chunk(request: dict[str, Any]) -> str:
    """The recorded answer for whichever files this part of the audit shows."""
    user = request["messages"][1]["content"]
    found = [f for f in (SQLI, GUESS) if f"### {f['path']}\n" in user]
    return findings_json(found, "Audited.")


def audit_env(fake_model: FakeModel, data: Path) -> dict[str, str]:
    return {"REVIEWBOT_MODEL_BASE_URL": f"{fake_model.url}/client/v4/accounts/acc-1/ai/v1",
            "CLOUDFLARE_API_TOKEN": MODEL_TOKEN, "REVIEWBOT_ASYNC_POLL": "0.1", "REVIEWBOT_DATA_DIR": str(data)}


def test_audit_runs_in_chunks_through_the_async_queue_and_writes_a_report(
        tmp_path: Path, fake_model: FakeModel) -> None:
    root = tmp_path / "project"
    root.mkdir()
    make_tree(root)
    git(root, "init", "-q")
    (root / ".gitignore").write_text("node_modules/\n")
    git(root, "add", "-A")
    fake_model.default = answering(by_chunk, {GUESS["title"]: ("refute", None)})
    report = tmp_path / "audit.md"
    done = run_cli(["audit", "--repo", str(root), "--report", str(report), "--chunk-tokens", "30"],
                   audit_env(fake_model, tmp_path / "data"), tmp_path)
    assert done.returncode == 0, done.stderr

    assert fake_model.requests == []  # nothing synchronous: every request went to the queue
    submitted = [c["requests"][0] for c in fake_model.async_calls if "requests" in c]
    shown = " ".join(s["messages"][1]["content"] for s in submitted)
    assert "### app/db.py\n" in shown and "### web/server.ts\n" in shown and "node_modules" not in shown
    text = report.read_text()
    assert "3 file(s) in 3 chunk(s), 3 done" in text
    assert "User input is formatted into SQL" in text and "| CWE-89 (SQL injection) | 1 |" in text
    assert "Name is written into HTML unescaped" in text.split("## Dropped after verification")[1]  # refuted
    facts = [p for p in (tmp_path / "data" / "audit-facts").iterdir() if p.suffix == ".sqlite"]
    assert len(facts) == 1 and stat.S_IMODE(facts[0].stat().st_mode) == 0o600  # the next plan parses nothing new


def test_an_interrupted_audit_resumes_its_queued_requests_instead_of_paying_again(
        tmp_path: Path, fake_model: FakeModel) -> None:
    root = tmp_path / "plain"  # not a git repository: the files are found by walking the folder
    root.mkdir()
    make_tree(root)
    fake_model.default = answering(by_chunk)
    fake_model.async_polls_before_done = 10**9  # the first run never gets an answer
    env = audit_env(fake_model, tmp_path / "data")
    args = [sys.executable, "-m", "reviewbot", "audit", "--repo", str(root), "--parallel", "1",
            "--chunk-tokens", "30"]
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CLOUDFLARE_", "REVIEWBOT_"))}
    first = subprocess.Popen(args, env=clean | env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        memo = wait_for_pending(tmp_path / "data")
    finally:
        first.kill()
        first.wait(10)
    [request_id] = memo["waiting"].values()
    first_calls = len(fake_model.async_calls)
    first_submits = [c for c in fake_model.async_calls if "requests" in c]
    assert len(first_submits) == 1

    for rid, (body, affinity, _) in list(fake_model.queued.items()):
        fake_model.queued[rid] = (body, affinity, 0)  # the provider finished while we were away
    fake_model.async_polls_before_done = 0
    report = tmp_path / "audit.json"
    done = run_cli(["audit", "--repo", str(root), "--parallel", "1", "--chunk-tokens", "30", "--report",
                    str(report)], env, tmp_path)
    assert done.returncode == 0, done.stderr
    later = fake_model.async_calls[first_calls:]
    assert {"request_id": request_id} in later  # polled again by its id...
    assert first_submits[0] not in later  # ...and never submitted twice
    result = json.loads(report.read_text())
    assert result["chunks_done"] == result["chunks"] == 3 and result["cwe"] == {"CWE-79": 1, "CWE-89": 1}
    assert not (next((tmp_path / "data" / "audits").iterdir()) / "memo.json").exists()  # done: answers dropped
    # The audit's state holds findings about private code: this user's only.
    audits = tmp_path / "data" / "audits"
    assert {stat.S_IMODE(p.stat().st_mode) for p in [audits, *audits.rglob("*")] if p.is_dir()} == {0o700}
    assert {stat.S_IMODE(p.stat().st_mode) for p in audits.rglob("*") if p.is_file()} == {0o600}


def wait_for_pending(data: Path, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for memo in data.glob("audits/*/memo.json"):
            content = json.loads(memo.read_text() or "{}")
            if content.get("waiting"):
                return dict(content)
        time.sleep(0.05)
    raise AssertionError("the audit never queued a request")
