"""Rates over posted findings, grouped by repository, category, severity, CWE, model or path (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reviewbot.outcomes.records import OUTCOMES, FindingRecord, Group, Rate

_COUNTED = ("posted", *OUTCOMES, "thumbs_up", "thumbs_down")


def rates(records: Iterable[FindingRecord], by: Group | None, since: float = 0.0) -> list[Rate]:
    """One Rate per value of `by` (None: one row, `all`) among findings posted at or after `since`, most posted
    first; a finding without a value (no CWE) counts under `-`."""
    counts: dict[str, dict[str, int]] = {}
    for record in records:
        if record.posted_at < since:
            continue
        key = (record.value(by) or "-") if by is not None else "all"
        row = counts.setdefault(key, dict.fromkeys(_COUNTED, 0))
        row["posted"] += 1
        if record.outcome in OUTCOMES:
            row[record.outcome] += 1
        row["thumbs_up"] += record.thumbs_up
        row["thumbs_down"] += record.thumbs_down
    found = [Rate(group=by or "all", key=key, **row) for key, row in counts.items()]
    return sorted(found, key=lambda r: (-r.posted, r.key))


def total(records: Iterable[FindingRecord], since: float = 0.0) -> Rate:
    """Every finding in the window as one row (an empty one when there are none)."""
    return next(iter(rates(records, None, since)), Rate(group="all", key="all"))


@dataclass(frozen=True)
class RepoRates:
    """One repository's findings in the window: all of them, and per category (the dashboard's chart)."""

    repo: str
    total: Rate
    categories: list[Rate]


def per_repository(records: Iterable[FindingRecord], since: float = 0.0, limit: int = 12) -> list[RepoRates]:
    """The `limit` repositories with the most findings posted since `since`, most first."""
    by_repo: dict[str, list[FindingRecord]] = {}
    for record in records:
        if record.posted_at >= since:
            by_repo.setdefault(record.repo, []).append(record)
    found = [RepoRates(repo, total(rows), rates(rows, "category")) for repo, rows in by_repo.items()]
    return sorted(found, key=lambda r: (-r.total.posted, r.repo))[:limit]
