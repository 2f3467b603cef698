"""Dismissals: the words that mean "leave this finding alone", and whether a new finding was dismissed before."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass

from reviewbot.review.findings.fingerprints import normalize_title

MAX_RULE_WORDS = 12
# Phrases a maintainer uses to close a finding for good; a question ("is this intended?") is not one.
_PHRASES: tuple[tuple[str, str], ...] = (
    (r"\bwon'?t\s+fix\b|\bwill\s+not\s+fix\b|\bnot\s+(?:going\s+to|gonna)\s+fix\b", "won't fix"),
    (r"\bfalse\s+positive\b|\bnot\s+a\s+(?:real\s+)?(?:bug|problem|issue)\b|\byou(?:'re|\s+are)\s+wrong\b"
     r"|\bthis\s+is\s+wrong\b|\bincorrect\s+finding\b", "false positive"),
    (r"\bby\s+design\b|\bworking\s+as\s+intended\b|\bworks\s+as\s+intended\b|\b(?:this\s+is|it'?s|that'?s)\s+"
     r"(?:intended|intentional|deliberate|on\s+purpose)\b|\bintentional(?:ly)?\b|\bon\s+purpose\b", "intended"),
    (r"\bignore\s+this\b|\bdismiss(?:ed)?\b", "dismissed"),
)
_COMPILED = tuple((re.compile(p, re.IGNORECASE), reason) for p, reason in _PHRASES)
_NEGATED = re.compile(r"\b(?:not|isn'?t|wasn'?t)\s+(?:intended|intentional|by\s+design|deliberate)\b", re.IGNORECASE)


def dismissal_reason(text: str) -> str | None:
    """The reason a reply dismisses a finding ("intended", "won't fix", "false positive"), or None.

    A small, explainable classifier: it looks at the reply's own words (quoted lines removed) and refuses
    questions and negations, so "is this intended?" or "this is not intended" never dismiss anything."""
    own = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(">"))
    own = re.sub(r"`[^`]*`", " ", own)  # code spans are quotes too
    if _NEGATED.search(own):
        return None
    for pattern, reason in _COMPILED:
        match = pattern.search(own)
        if match is None:
            continue
        sentence_end = own.find("\n", match.end())
        sentence = own[match.start(): sentence_end if sentence_end >= 0 else len(own)]
        if "?" in sentence.split(".")[0]:
            return None
        return reason
    return None


def normalise_rule(title: str) -> str:
    """A short rule from a finding's title: lower-case words, at most twelve of them."""
    return " ".join(normalize_title(title).split()[:MAX_RULE_WORDS])


@dataclass(frozen=True)
class Learning:
    """A finding the team decided to live with, for one repository.

    `code_key` names the code it was about (empty for rules written in the configuration file); `rule`
    is the normalised title; `path` is the file (or, from the configuration file, a glob; empty: any)."""

    rule: str
    code_key: str = ""
    path: str = ""
    reason: str = ""
    by: str = ""
    source: str = "thread"  # thread | config

    def matches(self, key: str, path: str, title: str) -> bool:
        if self.code_key and self.code_key == key:
            return True
        if not self.rule or (self.path and not fnmatch.fnmatchcase(path, self.path)):
            return False
        words = set(normalize_title(title).split())
        if self.source == "thread":  # the same rule in the same file: the code moved a little
            return self.path == path and normalise_rule(title) == self.rule
        return set(self.rule.split()) <= words


def held_back(key: str, path: str, title: str, learnings: Iterable[Learning]) -> bool:
    """Whether a finding (its code key, file and title) was dismissed before in this repository."""
    return any(learning.matches(key, path, title) for learning in learnings)
