"""`reviewbot usage`: totals that equal the ledger, in JSON, CSV and a table; progress in a terminal."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from redis.asyncio import Redis

from reviewbot.observe.ledger import Entry, Ledger
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import bug_finding
from tests.integration.test_cli_review import model_env, repo  # noqa: F401  (the `repo` fixture)
from tests.observe_helpers import ledger_entries, run_in_terminal

REPOS = ("acme/widgets", "acme/gadgets", "umbrella/api")
OUTCOMES = ("reviewed", "reviewed", "failed", "superseded", "reviewed", "skipped")


async def seed(redis_url: str, count: int, *, days_back: float = 10.0) -> list[Entry]:
    """`count` records spread evenly over the last `days_back` days, in order (explicit stream ids)."""
    redis = Redis.from_url(redis_url)
    ledger, now, seeded = Ledger(redis, 90), time.time(), []
    try:
        for i in range(count):
            at = now - days_back * 86_400 * (1 - i / count)
            prompt = 1000 + 37 * i
            entry = Entry(REPOS[i % 3], 100 + i, f"{i:040x}", OUTCOMES[i % len(OUTCOMES)], duration_s=10.0 + i % 7,
                          prompt_tokens=prompt, cached_tokens=prompt // 2, completion_tokens=200 + i,
                          cost_usd=0.0011 * (i + 1), saved_usd=0.0003 * (i + 1), model="@cf/moonshotai/kimi-k2.5")
            await ledger.record(entry, now=at, stream_id=f"{int(at * 1000)}-0")
            seeded.append(entry)
    finally:
        await redis.aclose()
    return seeded


def usage(redis_url: str, *args: str, cwd: Path) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CLOUDFLARE_", "REVIEWBOT_"))}
    done = subprocess.run([sys.executable, "-m", "reviewbot", "usage", *args], env=clean | {"REDIS_URL": redis_url},
                          cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no progress bar and no log lines when stderr is not a terminal
    return done.stdout


async def test_usage_totals_equal_the_sum_of_the_ledger_in_json_and_csv(redis_url: str, tmp_path: Path) -> None:
    await seed(redis_url, 60)
    week = [e for e in await ledger_entries(redis_url) if e.at >= time.time() - 7 * 86_400]
    assert 30 < len(week) < 60  # the default --since 7d leaves the older records out

    report = json.loads(usage(redis_url, "--format", "json", cwd=tmp_path))
    totals = report["totals"]
    assert totals["records"] == len(week)
    assert totals["reviewed"] == sum(e.outcome == "reviewed" for e in week)
    assert totals["failed"] == sum(e.outcome == "failed" for e in week)
    for column in ("prompt_tokens", "cached_tokens", "completion_tokens"):
        assert totals[column] == sum(getattr(e, column) for e in week)
        assert sum(r[column] for r in report["repos"]) == totals[column]
    assert totals["cost_usd"] == pytest.approx(sum(e.cost_usd for e in week), abs=1e-6)
    assert totals["saved_usd"] == pytest.approx(sum(e.saved_usd for e in week), abs=1e-6)
    assert {r["repo"] for r in report["repos"]} == set(REPOS)

    rows = list(csv.DictReader(io.StringIO(usage(redis_url, "--format", "csv", cwd=tmp_path))))
    assert [r["repo"] for r in rows][-1] == "(total)"
    assert float(rows[-1]["cost_usd"]) == pytest.approx(totals["cost_usd"], abs=1e-6)
    assert {r["repo"]: int(r["prompt_tokens"]) for r in rows[:-1]} == \
        {r["repo"]: r["prompt_tokens"] for r in report["repos"]}

    only = json.loads(usage(redis_url, "--format", "json", "--repo", "umbrella/api", "--since", "30d", cwd=tmp_path))
    assert [r["repo"] for r in only["repos"]] == ["umbrella/api"]
    assert only["totals"]["records"] == 20

    exported = list(csv.DictReader(io.StringIO(usage(redis_url, "--records", "--format", "csv", "--since", "30d",
                                                     cwd=tmp_path))))
    assert len(exported) == 60 and exported[0]["time"].endswith("Z") and exported[0]["repo"] == REPOS[0]
    records = json.loads(usage(redis_url, "--records", "--format", "json", "--since", "30d", cwd=tmp_path))
    assert sum(r["cost_usd"] for r in records) == pytest.approx(sum(float(r["cost_usd"]) for r in exported))


async def test_usage_in_a_terminal_shows_progress_over_a_big_ledger_and_a_table(
        redis_url: str, tmp_path: Path) -> None:
    seeded = await seed(redis_url, 2500, days_back=3)  # three pages of the stream
    _, shown = run_in_terminal(["usage"], {"REDIS_URL": redis_url}, tmp_path, stdout_too=True)
    assert "reading the usage ledger" in shown
    assert "Repository" in shown and "umbrella/api" in shown and "┃" in shown  # a rich table
    assert f"${sum(e.cost_usd for e in seeded):,.2f}" in shown
    assert "prefix cache served" in shown


def test_review_shows_progress_on_a_terminal_and_keeps_stdout_clean(
        repo: Path, fake_model: FakeModel) -> None:  # noqa: F811
    fake_model.script_reply(findings_json([bug_finding()]))
    stdout, shown = run_in_terminal(["review", "--repo", str(repo), "--base", "main", "--format", "json"],
                                    model_env(fake_model) | {"REVIEWBOT_DATA_DIR": str(repo.parent / "data")},
                                    repo.parent, stdout_too=False)
    assert "reviewing:" in shown
    assert json.loads(stdout)["findings"]  # stdout is still exactly one JSON document


def test_since_must_be_a_span_or_a_date(tmp_path: Path, redis_url: str) -> None:
    done = subprocess.run([sys.executable, "-m", "reviewbot", "usage", "--since", "last tuesday"],
                          env=os.environ | {"REDIS_URL": redis_url}, cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "7d, 24h" in done.stderr
