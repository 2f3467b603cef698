"""An audit's spend in the usage ledger: one entry per finished audit (its chunks and verifications, what the fake
model billed), never a second one when the finishing job runs again; `reviewbot usage` and the dashboard show it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel
from tests.helpers import run_worker_until_idle
from tests.integration.test_audit import SQLI
from tests.integration.test_audit_service import finish_again, first_audit
from tests.integration.test_usage_cli import usage
from tests.observe_helpers import ledger_entries, served_totals


async def test_a_finished_audit_is_one_ledger_entry_with_all_it_spent_shown_by_usage_and_the_dashboard(
        web: httpx.Client, env: dict[str, str], redis_url: str, fake_github: FakeGitHub, fake_model: FakeModel,
        tmp_path: Path) -> None:
    settings, record = await first_audit(web, env, redis_url, fake_github, fake_model)
    truth = served_totals(fake_model)

    [entry] = await ledger_entries(redis_url)  # not one per chunk, nor per try of a chunk waiting in the queue
    assert (entry.repo, entry.pr, entry.sha, entry.outcome, entry.trigger) == (REPO, 0, record.sha, "audited",
                                                                              "comment")
    assert entry.installation == INSTALLATION and entry.is_audit and entry.model == record.model
    # Three chunks and two verifications, all through the provider's queue: every one billed is in the entry.
    assert (entry.requests, entry.async_requests) == (5, 5) == (truth["requests"], truth["requests"])
    assert (entry.prompt_tokens, entry.cached_tokens, entry.completion_tokens) == \
        (truth["prompt"], truth["cached"], truth["completion"])
    assert entry.cost_usd == pytest.approx(truth["cost"], abs=1e-6) == pytest.approx(record.spent_usd, abs=1e-4)
    assert entry.cost_usd > 0 and entry.saved_usd >= 0
    severity = SQLI["severity"]
    assert getattr(entry, severity) == 1 and entry.comments == len(record.findings) == 1
    assert (entry.files_reviewed, entry.files_skipped) == (3, 0) and entry.duration_s > 0

    # The finishing job runs again (a worker died after the entry was written): still one entry.
    await finish_again(redis_url, record)
    await run_worker_until_idle(settings, redis_url)
    assert len(await ledger_entries(redis_url)) == 1

    report = json.loads(usage(redis_url, "--format", "json", cwd=tmp_path))
    [repo] = report["repos"]
    assert (repo["repo"], repo["audits"], repo["reviewed"], repo["skipped"], repo["failed"]) == (REPO, 1, 0, 0, 0)
    assert repo["cost_usd"] == pytest.approx(entry.cost_usd, abs=1e-6)

    page = web.get("/dashboard").text
    recent = re.search(r'<table id="recent-reviews">.*?</table>', page, re.DOTALL)
    assert recent is not None and f"{REPO} · audit" in recent.group(0) and "/pull/0" not in page
    assert 'class="outcome-audited"' in recent.group(0)
