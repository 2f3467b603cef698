"""`reviewbot redeliver`: exactly the deliveries that never succeeded, once, and nothing in a dry run."""

from __future__ import annotations

import io
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from reviewbot.cli.durations import parse_span
from reviewbot.cli.github_app import redeliver_command
from reviewbot.cli.main import main
from reviewbot.errors import ConfigError
from reviewbot.settings import Settings
from tests.fakes.github import FakeGitHub


def iso(ago: timedelta) -> str:
    return (datetime.now(UTC) - ago).strftime("%Y-%m-%dT%H:%M:%SZ")


def history(fake: FakeGitHub) -> dict[str, int]:
    """Deliveries over three cursor pages; returns the ids that must be redelivered, by GUID."""
    for _ in range(150):  # successes, on every page
        fake.add_delivery(str(uuid.uuid4()), 202, delivered_at=iso(timedelta(minutes=30)))
    for _ in range(120):  # a page and more of old history
        fake.add_delivery(str(uuid.uuid4()), 202, delivered_at=iso(timedelta(days=4)))
    fake.add_delivery("recovered", 502, delivered_at=iso(timedelta(hours=3)))
    fake.add_delivery("recovered", 202, delivered_at=iso(timedelta(hours=2)), redelivery=True)
    fake.add_delivery("down-twice", 0, delivered_at=iso(timedelta(hours=5)))
    newest = fake.add_delivery("down-twice", 503, delivered_at=iso(timedelta(hours=4)), redelivery=True)
    refused = fake.add_delivery("refused", 401, event="issue_comment", action="created",
                                delivered_at=iso(timedelta(minutes=10)))
    fake.add_delivery("too-old", 500, delivered_at=iso(timedelta(days=2)))
    return {"down-twice": newest["id"], "refused": refused["id"]}


def test_a_dry_run_lists_the_failed_deliveries_and_redelivers_nothing(settings: Settings,
                                                                       fake_github: FakeGitHub) -> None:
    history(fake_github)
    out = io.StringIO()
    assert redeliver_command(settings, "24h", dry_run=True, out=out) == 0
    lines = out.getvalue().splitlines()
    assert [line.split()[2] for line in lines[:-1]] == ["down-twice", "refused"]
    assert lines[1].startswith("would redeliver refused issue_comment.created")
    assert lines[-1].startswith("2 of 153 webhook deliveries") and fake_github.redelivered == []
    pages = [c for c in fake_github.requests if c.path == "/app/hook/deliveries"]
    assert len(pages) == 2 and "cursor" in pages[1].query  # of 3: it stops at the first delivery older than 24 h


def test_redeliver_asks_for_exactly_the_failed_ones_and_is_idempotent(settings: Settings,
                                                                      fake_github: FakeGitHub) -> None:
    expected = history(fake_github)
    out = io.StringIO()
    assert redeliver_command(settings, "24h", dry_run=False, out=out) == 0
    assert fake_github.redelivered == [expected["down-twice"], expected["refused"]]
    assert "redelivered down-twice" in out.getvalue() and "2 redelivered" in out.getvalue()
    # The redeliveries succeeded: running again (from cron) finds nothing to do.
    again = io.StringIO()
    assert redeliver_command(settings, "24h", dry_run=False, out=again) == 0
    assert len(fake_github.redelivered) == 2 and again.getvalue().startswith("0 of 153")
    # A longer window reaches the old failure too.
    redeliver_command(settings, "3d", dry_run=False, out=io.StringIO())
    assert len(fake_github.redelivered) == 3


def test_the_command_line(env: dict[str, str], fake_github: FakeGitHub, tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    history(fake_github)
    monkeypatch.chdir(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["redeliver", "--since", "1h", "--dry-run"]) == 0
    assert "would redeliver refused" in capsys.readouterr().out and fake_github.redelivered == []
    assert main(["redeliver", "--since", "yesterday"]) == 1
    assert "--since must look like" in capsys.readouterr().err
    with pytest.raises(ConfigError):
        parse_span("24")
    assert parse_span("90m") == timedelta(minutes=90)
