"""Remembered dismissals: what a learning names, where it applies, and whether a new finding was dismissed before.

A learning names code (its code key), not words: it holds back a finding on that same code, or one with the same
title in the same file while the named code is still there. Once that code is rewritten the learning lapses."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from reviewbot.review.findings.alerts import alert_rule_id
from reviewbot.review.findings.fingerprints import code_key, normalize_code, normalize_title

MAX_RULE_WORDS = 12


def normalise_rule(title: str) -> str:
    """A short rule from a finding's title: lower-case words, at most twelve of them."""
    return " ".join(normalize_title(title).split()[:MAX_RULE_WORDS])


@dataclass(frozen=True)
class Learning:
    """A finding the team decided to live with.

    `code_key` names the code it was about (empty for rules written in the configuration file); `rule` is the
    normalised title; `path` is the file (or, from the configuration file, a glob; empty: any); `pr` is the pull
    request it was dismissed on, and `repository` says whether it holds everywhere or on that pull request only."""

    rule: str
    code_key: str = ""
    path: str = ""
    reason: str = ""
    by: str = ""
    source: str = "thread"  # thread | config | code-scanning (an alert dismissed in GitHub's interface)
    title: str = ""  # the finding's title as it was posted
    category: str = ""  # with `lines`: lets a later review find the named code again in the file
    lines: int = 0  # how many non-blank lines the named code spans (0: unknown, only the code key matches)
    severity: str = ""
    cwe: str = ""
    pr: int = 0
    repository: bool = True
    at: float = 0.0  # when it was dismissed (epoch seconds)
    alert: int = 0  # code-scanning: the alert's number (reopening it forgets the learning)

    @property
    def security(self) -> bool:
        return bool(self.cwe) or self.category == "security"

    @property
    def store_key(self) -> str:
        """The field it is remembered under (what `reviewbot learnings forget` takes)."""
        base = f"alert:{self.alert}" if self.alert else self.code_key or f"rule:{self.rule}"
        return base if self.repository else f"{base}#pr{self.pr}"

    def applies_to(self, number: int) -> bool:
        return self.repository or self.pr == number

    def matches(self, key: str, path: str, title: str, head: Sequence[str] | None = None, *,
                cwe: str | None = None, lines: tuple[int, int] | None = None) -> bool:
        """Whether a finding (its code key, file, title; `head`: the file's lines at the head; `cwe` and `lines`,
        its first and last line there) is this one."""
        if self.source == "code-scanning":
            # The alert's rule is the CWE, its code key the audit's; a review's key differs, so the code is found
            # again in the file and must overlap the finding's lines.
            if self.path != path or self.rule != alert_rule_id(cwe):
                return False
            if self.code_key and self.code_key == key:
                return True
            found = self.found_at(head) if head is not None and lines is not None else None
            return found is not None and lines is not None and found[0] <= lines[1] and lines[0] <= found[1]
        if self.source == "config":
            words = set(normalize_title(title).split())
            return bool(self.rule) and (not self.path or fnmatch.fnmatchcase(path, self.path)) and \
                set(self.rule.split()) <= words
        if self.code_key and self.code_key == key:
            return True
        # The same title in the same file: the code moved, or the model anchored a neighbouring line. Only while
        # the code the learning names is still in the file; rewritten code lapses the learning.
        return bool(self.rule) and self.path == path and normalise_rule(title) == self.rule and \
            head is not None and self.still_there(head)

    def still_there(self, head: Sequence[str]) -> bool:
        """Whether the file (its lines) still holds the code this learning names, wherever it moved."""
        return self.found_at(head) is not None

    def found_at(self, head: Sequence[str]) -> tuple[int, int] | None:
        """The first and last line (1-based) of the code this learning names in the file, wherever it moved."""
        if not self.code_key or self.lines <= 0 or not self.category:
            return None
        numbered = [(n, line) for n, line in enumerate(head, start=1) if line.strip()]
        for start in range(len(numbered) - self.lines + 1):
            window = numbered[start:start + self.lines]
            if code_key(self.path, self.category, [line for _, line in window]) == self.code_key:
                return window[0][0], window[-1][0]
        return None


def held_back(key: str, path: str, title: str, learnings: Iterable[Learning], *, number: int = 0,
              head_files: Mapping[str, Sequence[str]] | None = None, cwe: str | None = None,
              lines: tuple[int, int] | None = None) -> Learning | None:
    """The learning that holds back a finding (its code key, file and title; its CWE and lines for alerts
    dismissed in code scanning) on pull request `number`, or None."""
    head = (head_files or {}).get(path)
    return next((learning for learning in learnings
                 if learning.applies_to(number) and learning.matches(key, path, title, head, cwe=cwe, lines=lines)),
                None)


def code_lines(code: Sequence[str]) -> int:
    """How many lines of `code` count in its code key (blank lines do not)."""
    return len(normalize_code(code).split("\n")) if normalize_code(code) else 0
