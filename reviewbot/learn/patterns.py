"""Patterns worth a proposed rule, found in remembered dismissals and outcome records (pure)."""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from reviewbot.outcomes.records import FindingRecord, Rate
from reviewbot.review.findings.dismissals import Learning

Kind = Literal["dismissed_rule", "dismissed_category", "low_resolution", "thumbs_down"]
MIN_DISMISSALS = 3  # the same rule or category dismissed this often in one folder...
MIN_PEOPLE = 2  # ...by this many different people whose dismissal holds for the whole repository
MIN_DECIDED = 30  # a category's resolution rate counts once this many of its findings have an outcome
LOW_RESOLUTION = 0.2  # fixed ÷ decided below this is low
MIN_THUMBS_DOWN = 3  # comments of one category with more 👎 than 👍
MAX_EVIDENCE = 20
T = TypeVar("T")
K = TypeVar("K")


@dataclass(frozen=True)
class Evidence:
    """One finding behind a pattern: where it was posted, who decided (a login), when, and what it said."""

    pr: int
    path: str
    by: str = ""
    at: float = 0.0
    title: str = ""  # the finding's title when known (left out of proposals on public repositories)
    note: str = ""  # e.g. "👎 2 · 👍 0"


@dataclass(frozen=True)
class Pattern:
    """A repeated decision: its kind, the category (and rule) it is about, the folder it holds in ("" = the whole
    repository), the counts behind it and the findings as evidence."""

    kind: Kind
    category: str
    folder: str = ""
    rule: str = ""
    count: int = 0  # dismissals, decided findings, or comments with more 👎 than 👍
    fixed: int = 0  # low_resolution: how many of `count` were fixed
    people: tuple[str, ...] = ()
    evidence: tuple[Evidence, ...] = ()

    @property
    def hash(self) -> str:
        """Stable while the evidence grows: what was decided about, not how often."""
        text = "\0".join((self.kind, self.category, self.folder, self.rule))
        return hashlib.sha256(text.encode()).hexdigest()[:12]


def _security(category: str, cwe: str = "") -> bool:
    # Silencing a class of security findings stays a person's decision, never a proposal.
    return category == "security" or bool(cwe)


def from_dismissals(learnings: Iterable[Learning]) -> list[Pattern]:
    """The same rule (else the same category) dismissed ≥ 3 times in one folder by ≥ 2 people who may decide for
    the repository; thread dismissals only (configured rules are already in the file)."""
    usable = [d for d in learnings if d.source == "thread" and d.repository and d.by and
              posixpath.dirname(d.path) and not _security(d.category, d.cwe)]
    found: list[Pattern] = []
    covered: set[int] = set()
    for (rule, folder), group in _grouped(usable, lambda d: (d.rule, posixpath.dirname(d.path))):
        if rule and (pattern := _dismissed("dismissed_rule", group, folder, rule)) is not None:
            found.append(pattern)
            covered.update(id(d) for d in group)
    rest = [d for d in usable if id(d) not in covered]
    for (category, folder), group in _grouped(rest, lambda d: (d.category, posixpath.dirname(d.path))):
        if category and (pattern := _dismissed("dismissed_category", group, folder, "")) is not None:
            found.append(pattern)
    return found


def _dismissed(kind: Kind, group: Sequence[Learning], folder: str, rule: str) -> Pattern | None:
    people = sorted({d.by.lower() for d in group})
    if len(group) < MIN_DISMISSALS or len(people) < MIN_PEOPLE:
        return None
    ordered = sorted(group, key=lambda d: (d.at, d.pr, d.path))
    evidence = tuple(Evidence(d.pr, d.path, d.by, d.at, d.title) for d in ordered[:MAX_EVIDENCE])
    return Pattern(kind, group[0].category, folder, rule, len(group), people=tuple(people), evidence=evidence)


def from_rates(rates: Iterable[Rate], records: Sequence[FindingRecord]) -> list[Pattern]:
    """A category (a `category` row of the outcomes API) fixed in under a fifth of ≥ 30 decided findings."""
    found = []
    for rate in rates:
        decided = rate.posted - rate.pending
        if rate.group != "category" or _security(rate.key) or decided < MIN_DECIDED:
            continue
        if rate.fixed / decided >= LOW_RESOLUTION:
            continue
        mine = [r for r in records if r.category == rate.key and r.outcome and r.outcome != "fixed"]
        evidence = tuple(Evidence(r.pr, r.path, r.by, r.decided_at or r.closed_at, note=r.outcome.replace("_", " "))
                         for r in mine[-MAX_EVIDENCE:])
        found.append(Pattern("low_resolution", rate.key, count=decided, fixed=rate.fixed, evidence=evidence))
    return found


def from_reactions(records: Iterable[FindingRecord]) -> list[Pattern]:
    """One category's comments with more 👎 than 👍 and a 👎 from someone with write access, at least three of
    them and from two such people (a drive-by account's 👎 is counted in the stats, never acted on); the folder
    they share, if any."""
    disliked = [r for r in records if r.thumbs_down > r.thumbs_up and r.disliked_by
                and not _security(r.category, r.cwe)]
    found = []
    for (category,), group in _grouped(disliked, lambda r: (r.category,)):
        if len(group) < MIN_THUMBS_DOWN or len({who for r in group for who in r.disliked_by}) < MIN_PEOPLE:
            continue
        folder = posixpath.commonpath([posixpath.dirname(r.path) for r in group])
        evidence = tuple(Evidence(r.pr, r.path, at=r.closed_at or r.posted_at,
                                  note=f"👎 {r.thumbs_down} · 👍 {r.thumbs_up}") for r in group[-MAX_EVIDENCE:])
        found.append(Pattern("thumbs_down", category, folder, count=len(group), evidence=evidence))
    return found


def _grouped(items: Iterable[T], key: Callable[[T], K]) -> list[tuple[K, list[T]]]:
    groups: dict[K, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return sorted(groups.items(), key=lambda kv: str(kv[0]))
