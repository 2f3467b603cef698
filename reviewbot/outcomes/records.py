"""One posted finding and its outcome, as stored (JSON), and a rate over a group of them."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import asdict, dataclass
from typing import Literal, get_args

Outcome = Literal["fixed", "dismissed", "resolved", "open_at_merge", "open_at_close"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
DECIDED_BEFORE_CLOSE: frozenset[str] = frozenset({"fixed", "dismissed"})  # a close never overrides these
Group = Literal["repo", "category", "severity", "cwe", "model", "path"]
GROUPS: tuple[Group, ...] = get_args(Group)


@dataclass(frozen=True)
class FindingRecord:
    """A finding reviewbot posted as a line comment, and what became of it (`outcome` empty while undecided)."""

    installation: int
    repo: str
    pr: int
    fingerprint: str
    category: str
    severity: str
    path: str
    line: int
    start_line: int = 0
    cwe: str = ""
    model: str = ""
    posted_at: float = 0.0
    outcome: str = ""  # one of OUTCOMES once decided
    decided_at: float = 0.0
    by: str = ""  # who dismissed or resolved it; "fix commit" for a commit's `Reviewbot-Fix:` trailer
    scope: str = ""  # a dismissal's reach: "repository" or "pull request"
    comment_id: int = 0  # the thread's first comment, once read at close
    thumbs_up: int = 0  # 👍 / 👎 on that comment, read when the pull request closed
    thumbs_down: int = 0
    disliked_by: tuple[str, ...] = ()  # people with write access among those giving 👎 (rule proposals count them)
    closed_at: float = 0.0

    @property
    def field(self) -> str:
        """The hash field it is kept under: one fingerprint may be posted on several pull requests."""
        return f"{self.pr}:{self.fingerprint}"

    def value(self, group: Group) -> str:
        return str(getattr(self, group) or "")

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, raw: str | bytes) -> FindingRecord | None:
        """None for a value this version cannot read (stored by another version, or damaged)."""
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                return None
            if isinstance(data.get("disliked_by"), list):  # JSON has no tuples
                data["disliked_by"] = tuple(str(who) for who in data["disliked_by"])
            return cls(**{k: v for k, v in data.items() if k in _NAMES})
        except (ValueError, TypeError):
            return None


_NAMES = frozenset(f.name for f in dataclasses.fields(FindingRecord))


@dataclass(frozen=True)
class Rate:
    """Outcomes of the findings in one group (e.g. category `security`) posted within a window."""

    group: str
    key: str
    posted: int = 0
    fixed: int = 0
    dismissed: int = 0
    resolved: int = 0  # resolved by a person without a change
    open_at_merge: int = 0
    open_at_close: int = 0
    thumbs_up: int = 0
    thumbs_down: int = 0

    @property
    def pending(self) -> int:
        """Posted on pull requests still open: no outcome yet."""
        return self.posted - self.fixed - self.dismissed - self.resolved - self.open_at_merge - self.open_at_close

    @property
    def resolution_rate(self) -> float:
        return self.fixed / self.posted if self.posted else 0.0

    @property
    def dismissal_rate(self) -> float:
        return self.dismissed / self.posted if self.posted else 0.0

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "pending": self.pending, "resolution_rate": round(self.resolution_rate, 4),
                "dismissal_rate": round(self.dismissal_rate, 4)}
