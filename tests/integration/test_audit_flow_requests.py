"""A flow no chunk's request holds whole (input read in one file, passed through a second, used in a sink in a third,
each file its own chunk) runs in the service as a chunk job of its own: its request shows the three pieces on the
audit's prefix, and the finding it shares with the sink's own chunk is published once."""

from __future__ import annotations

from typing import Any

import httpx

from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json
from tests.helpers import run_worker_until_idle
from tests.integration.test_audit_service import asked, audits

SOURCE_LINE = "token = request.COOKIES['token']"
MIDDLE_DEF = "def lookup_token(token):"
SINK_LINE = "cursor.execute(\"SELECT * FROM tokens WHERE key = '%s'\" % token)"
TREE = {
    "web/views.py": f"from svc.tokens import lookup_token\n\n\ndef check(request):\n    {SOURCE_LINE}\n"
                    "    return lookup_token(token)\n",
    "svc/tokens.py": f"from store.sql import fetch_token\n\n\n{MIDDLE_DEF}\n    token = token.strip()\n"
                     "    return fetch_token(token)\n",
    "store/sql.py": f"def fetch_token(token):\n    cursor = connection.cursor()\n    {SINK_LINE}\n"
                    "    return cursor.fetchone()\n",
}
FINDING = {"path": "store/sql.py", "line": 3, "start_line": None, "side": "RIGHT", "severity": "critical",
           "category": "security", "title": "The session cookie is formatted into SQL", "body": "Parameterise.",
           "suggestion": None, "confidence": 0.9, "cwe": "CWE-89", "evidence": [
               {"path": "web/views.py", "line": 5, "role": "source", "note": "the cookie"},
               {"path": "store/sql.py", "line": 3, "role": "sink", "note": "formatted SQL"}]}
FLOW_PART = "one cross-file flow to audit"


def user_text(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in request.get("messages") or [] if m.get("role") == "user")


def finder(request: dict[str, Any]) -> str:
    """An ideal finder: it reports the injection where it sees the whole flow, or audits the sink's file."""
    text = user_text(request)
    whole = all(piece in text for piece in (SOURCE_LINE, MIDDLE_DEF, SINK_LINE))
    return findings_json([FINDING] if whole or "### store/sql.py\n" in text else [])


async def test_a_flow_request_runs_as_a_chunk_job_and_its_finding_is_published_once(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    settings = asked(web, env, fake_github, fake_model, answering(finder), TREE)
    await run_worker_until_idle(settings, redis_url)
    [record] = await audits(redis_url)
    assert record.status == "done"
    flow_parts = [c for c in record.chunks if not c.paths]
    assert len(record.chunks) == 4 and len(flow_parts) == 1  # three files, one flow none of them holds
    bodies = [body for body, _, _ in fake_model.queued.values()]
    flows = [b for b in bodies if FLOW_PART in user_text(b)]
    assert len(flows) == 1
    assert all(piece in user_text(flows[0]) for piece in (SOURCE_LINE, MIDDLE_DEF, SINK_LINE))
    assert [f["title"] for f in record.findings] == [FINDING["title"]]  # the flow's and the sink chunk's: one
    assert record.duplicates >= 1
