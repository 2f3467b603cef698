"""Totals over ledger records, per repository and overall, and their CSV/JSON forms (pure)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from reviewbot.observe.ledger import AUDITED, COLUMNS, FAILED, Entry

TOTAL = "(total)"  # a repository name always has a slash, so this row cannot collide with one


@dataclass
class Totals:
    repo: str
    records: int = 0
    reviewed: int = 0
    failed: int = 0
    superseded: int = 0
    skipped: int = 0  # skipped, paused, out of budget
    audits: int = 0  # finished audits (their whole cost is in the token and dollar columns)
    fixes: int = 0  # fixes that asked the model: pushed, suggested or declined
    fixes_declined: int = 0
    fix_ci_passed: int = 0  # a fix commit's CI result, a record of its own (not another fix)
    fix_ci_failed: int = 0
    review_seconds: float = 0.0  # summed over reviewed records
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    saved_usd: float = 0.0

    def add(self, e: Entry) -> None:
        self.records += 1
        if e.kind == "fix" and e.outcome.startswith("ci-"):
            self.fix_ci_passed += int(e.outcome == "ci-passed")
            self.fix_ci_failed += int(e.outcome == "ci-failed")
        elif e.kind == "fix":
            self.fixes += 1
            self.fixes_declined += int(e.outcome.startswith("declined"))
        elif e.outcome == "reviewed":
            self.reviewed += 1
            self.review_seconds += e.duration_s
        elif e.outcome in FAILED:
            self.failed += 1
        elif e.outcome == "superseded":
            self.superseded += 1
        elif e.outcome == AUDITED:
            self.audits += 1
        else:
            self.skipped += 1
        self.prompt_tokens += e.prompt_tokens
        self.cached_tokens += e.cached_tokens
        self.completion_tokens += e.completion_tokens
        self.cost_usd += e.cost_usd
        self.saved_usd += e.saved_usd

    @property
    def cache_ratio(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def mean_review_s(self) -> float:
        return self.review_seconds / self.reviewed if self.reviewed else 0.0

    def row(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("review_seconds")
        data |= {"mean_review_s": round(self.mean_review_s, 3), "cache_ratio": round(self.cache_ratio, 4),
                 "cost_usd": round(self.cost_usd, 6), "saved_usd": round(self.saved_usd, 6)}
        return data


@dataclass(frozen=True)
class Summary:
    since: datetime | None
    total: Totals
    repos: list[Totals]

    def as_json(self) -> str:
        return json.dumps({"since": self.since.isoformat() if self.since else None, "totals": self.total.row(),
                           "repos": [t.row() for t in self.repos]}, indent=2)

    def as_csv(self) -> str:
        rows = [t.row() for t in [*self.repos, self.total]]
        return _csv(list(rows[0]), rows)


def summarize(entries: Iterable[Entry], since: datetime | None = None) -> Summary:
    total, repos = Totals(TOTAL), dict[str, Totals]()
    for entry in entries:
        total.add(entry)
        repos.setdefault(entry.repo, Totals(entry.repo)).add(entry)
    return Summary(since, total, sorted(repos.values(), key=lambda t: (-t.cost_usd, t.repo)))


def records_csv(entries: Iterable[Entry]) -> str:
    return _csv(COLUMNS, [e.row() for e in entries])


def records_json(entries: Iterable[Entry]) -> str:
    return json.dumps([e.row() for e in entries], indent=2)


def _csv(columns: list[str], rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
