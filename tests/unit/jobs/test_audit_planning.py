"""An audit's plan, pure: schedules and their periods, `@app audit` arguments, issue comments, scope, the cap."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from reviewbot.commands.decisions import parse_command
from reviewbot.jobs.audit.audit_scope import in_scope, plan_scope
from reviewbot.review.config import parse_config
from reviewbot.review.context.snapshot import MemorySnapshot
from reviewbot.review.cronspec import due_period, parse_cron
from reviewbot.settings.catalogue import Price
from reviewbot.webhooks.events import CommentCommand, Ignored, decide

K26 = Price(0.95, 0.16, 4.00)
TEN_MINUTES = timedelta(minutes=10)
MONDAY_0230 = datetime(2026, 11, 30, 2, 30, tzinfo=UTC)


def test_named_schedules_have_one_period_per_day_or_week() -> None:
    assert due_period("daily", MONDAY_0230, TEN_MINUTES) == "day-2026-11-30"
    assert due_period("daily", MONDAY_0230 + timedelta(hours=20), TEN_MINUTES) == "day-2026-11-30"
    assert due_period("weekly", MONDAY_0230, TEN_MINUTES) == due_period("weekly", MONDAY_0230 + timedelta(days=6),
                                                                       TEN_MINUTES) == "week-2026-49"


def test_a_cron_expression_is_due_when_it_matched_since_the_last_scan() -> None:
    assert due_period("30 2 * * 1", MONDAY_0230 + timedelta(minutes=5), TEN_MINUTES) == "cron-2026-11-30T02:30"
    assert due_period("30 2 * * 1", MONDAY_0230 + timedelta(minutes=15), TEN_MINUTES) is None  # the last scan had it
    assert due_period("30 2 * * 2", MONDAY_0230, TEN_MINUTES) is None  # Tuesdays only
    assert due_period("*/20 * 30 11 7", MONDAY_0230 - timedelta(minutes=5), TEN_MINUTES) == "cron-2026-11-30T02:20"
    assert parse_cron("0 0 * * 7").matches(datetime(2026, 11, 29, tzinfo=UTC))  # 7 is Sunday too


@pytest.mark.parametrize("bad", ["hourly", "61 * * * *", "* * *", "5-1 * * * *", "*/0 * * * *"])
def test_a_bad_schedule_is_a_configuration_error_that_says_why(bad: str) -> None:
    loaded = parse_config(json.dumps({"audit": {"schedule": bad}}))
    assert loaded.errors and "audit.schedule" in loaded.errors[0]
    assert loaded.config.audit.schedule is None  # the defaults apply: no scheduled audit


def test_audit_commands_keep_paths_as_written_and_never_leave_the_repository() -> None:
    command = parse_command("@reviewbot audit full src/Api ../etc /lib/ docs/../x", ["reviewbot"])
    assert command is not None and command.verb == "audit" and command.args == ("full", "src/Api", "lib")
    # A line right after a quote continues it (CommonMark's lazy continuation, as GitHub shows it): a blank line ends it
    assert parse_command("> @reviewbot audit full\n@reviewbot audit", ["reviewbot"]) is None
    plain = parse_command("> @reviewbot audit full\n\n@reviewbot audit", ["reviewbot"])
    assert plain is not None and plain.args == ()


def issue_comment(body: str, *, pull: bool) -> dict[str, object]:
    issue: dict[str, object] = {"number": 12} | ({"pull_request": {"url": "x"}} if pull else {})
    return {"action": "created", "issue": issue, "installation": {"id": 1}, "repository": {"full_name": "a/b"},
            "comment": {"id": 5, "body": body, "author_association": "MEMBER",
                        "user": {"login": "mo", "type": "User"}}}


def test_an_issue_takes_audit_commands_only() -> None:
    audit = decide("issue_comment", issue_comment("@reviewbot audit app", pull=False), ["reviewbot"])
    assert isinstance(audit, CommentCommand) and audit.number == 12 and audit.command.args == ("app",)
    review = decide("issue_comment", issue_comment("@reviewbot review", pull=False), ["reviewbot"])
    assert isinstance(review, Ignored)
    assert isinstance(decide("issue_comment", issue_comment("@reviewbot audit", pull=True), ["reviewbot"]),
                      CommentCommand)


def test_scope_and_incremental_selection() -> None:
    files = {"app/a.py": "def alpha(x):\n    return x\n" + "# pad\n" * 30,
             "app/b.py": "from app.a import alpha\n\n\ndef beta(y):\n    return alpha(y)\n",
             "app/c.py": "def gamma(z):\n    return z * 2\n", "web/c.ts": "let z = 3;\n",
             "app/gen/d.py": "# d\n"}
    snapshot = MemorySnapshot(files)
    scoped = in_scope(sorted(files), files.get, ["app"], ["app/gen/**"])
    assert scoped == ["app/a.py", "app/b.py", "app/c.py"]
    blobs = snapshot.blob_ids()
    full = plan_scope(snapshot, scoped, blobs, None, chunk_tokens=1_000, price=K26, max_usd=None)
    assert full.selection is None and [p for c in full.chunks for p in c.paths] == scoped
    # `alpha` changed: its file is audited again with the file that calls it; the unrelated one is carried.
    previous = {p: blobs[p] for p in scoped} | {"app/a.py": "an older blob"}
    again = plan_scope(snapshot, scoped, blobs, previous, chunk_tokens=1_000, price=K26, max_usd=None)
    assert again.selection is not None and again.selection.carried == ("app/c.py",)
    assert [p for c in again.chunks for p in c.paths] == ["app/a.py", "app/b.py"]
    assert again.plan.prefix == full.plan.prefix  # the same bytes as the full audit's


def test_the_dollar_cap_leaves_whole_chunks_out_and_names_their_files() -> None:
    files = {f"m{i}.py": f"def f{i}(v):\n    return v\n" + "# padding\n" * 4_000 for i in range(6)}
    snapshot = MemorySnapshot(files)  # about 10,000 tokens each: two files per chunk
    uncapped = plan_scope(snapshot, sorted(files), {}, None, chunk_tokens=20_100, price=K26, max_usd=None)
    assert len(uncapped.chunks) == 3 and uncapped.left_out == []
    first, second, third = (c.estimate_usd for c in uncapped.chunks)
    cap = first + second + third / 2
    capped = plan_scope(snapshot, sorted(files), {}, None, chunk_tokens=20_100, price=K26, max_usd=cap)
    assert len(capped.chunks) == 2 and capped.left_out == ["m4.py", "m5.py"]
    assert capped.estimate_usd <= cap and len(capped.plan.chunks) == 2
