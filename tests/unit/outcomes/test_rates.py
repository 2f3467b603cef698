"""Resolution and dismissal rates, per group, over a window."""

from __future__ import annotations

from reviewbot.outcomes.rates import rates, total
from reviewbot.outcomes.records import FindingRecord


def record(n: int, category: str, outcome: str = "", *, at: float = 100.0, cwe: str = "", up: int = 0,
           down: int = 0, model: str = "kimi") -> FindingRecord:
    return FindingRecord(installation=1, repo="acme/app", pr=n, fingerprint=f"{n:016x}", category=category,
                         severity="major", path=f"app/{category}.py", line=n, cwe=cwe, model=model, posted_at=at,
                         outcome=outcome, thumbs_up=up, thumbs_down=down)


RECORDS = [record(1, "bug", "fixed", up=1), record(2, "bug", "fixed"), record(3, "bug", "dismissed", down=2),
           record(4, "bug", "open_at_merge"), record(5, "security", "resolved", cwe="CWE-89"),
           record(6, "security", cwe="CWE-89"), record(7, "style", "open_at_close", at=10.0)]


def test_rates_per_category_count_every_outcome_and_the_pending_ones() -> None:
    bug, security, style = rates(RECORDS, "category")
    assert (bug.key, bug.posted, bug.fixed, bug.dismissed, bug.open_at_merge, bug.pending) == ("bug", 4, 2, 1, 1, 0)
    assert (bug.resolution_rate, bug.dismissal_rate, bug.thumbs_up, bug.thumbs_down) == (0.5, 0.25, 1, 2)
    assert (security.posted, security.resolved, security.pending, security.resolution_rate) == (2, 1, 1, 0.0)
    assert (style.posted, style.open_at_close) == (1, 1)
    assert bug.as_json()["resolution_rate"] == 0.5 and bug.as_json()["pending"] == 0


def test_the_window_leaves_out_older_findings_and_a_missing_value_is_a_dash() -> None:
    by_cwe = rates(RECORDS, "cwe", since=50.0)
    assert [(r.key, r.posted) for r in by_cwe] == [("-", 4), ("CWE-89", 2)]
    assert [(r.key, r.posted) for r in rates(RECORDS, "model")] == [("kimi", 7)]


def test_the_total_is_one_row_and_an_empty_window_is_zero() -> None:
    everything = total(RECORDS)
    assert (everything.posted, everything.fixed, everything.dismissed, round(everything.resolution_rate, 3)) == (
        7, 2, 1, 0.286)
    empty = total(RECORDS, since=1e9)
    assert (empty.posted, empty.resolution_rate, empty.dismissal_rate) == (0, 0.0, 0.0)
