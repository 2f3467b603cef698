"""The offline stand-in of the provider for the audit benchmark: a model that reports every known sink of every
file it is shown (whole or in part, as the chunk's own file or as context), confirms every candidate, and bills
with the fake model's prefix cache (the longest common prefix with any earlier prompt of the same affinity, in
whole 64-token blocks; reviewbot.eval.replay.common_prefix, the one the fake model uses)."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from reviewbot.eval.replay import CACHE_BLOCK, CHARS_PER_TOKEN, common_prefix
from reviewbot.inference.pricing import cost
from reviewbot.review.prompt.tooldefs import TOOL_DEFINITIONS_JSON
from reviewbot.settings.catalogue import DEFAULT_PRICES

PRICE = DEFAULT_PRICES["@cf/moonshotai/kimi-k2.6"]
TOOLS = json.loads(TOOL_DEFINITIONS_JSON)
# What a security auditor flags in Django-like code, with its CWE: each line holding one is "a finding".
SINKS: tuple[tuple[str, str, str], ...] = (
    ("mark_safe(", "CWE-79", "Text marked safe without escaping"),
    ("SafeString(", "CWE-79", "Text marked safe without escaping"),
    (".raw(", "CWE-89", "Raw SQL built from arguments"),
    ("RawSQL(", "CWE-89", "Raw SQL built from arguments"),
    ("cursor.execute(", "CWE-89", "SQL executed from a built string"),
    ("pickle.loads(", "CWE-502", "Unpickling data that may come from outside"),
    ("subprocess.", "CWE-78", "A process started with arguments from the caller"),
    ("os.system(", "CWE-78", "A shell command run with arguments from the caller"),
    ("eval(", "CWE-94", "Code evaluated from a string"),
    ("hashlib.md5(", "CWE-327", "A fast hash where a slow one may be needed"),
    ("hashlib.sha1(", "CWE-327", "A fast hash where a slow one may be needed"),
)
_HEADER = re.compile(r"^(?:### |\+\+\+ (?:b/)?)(\S+)", re.MULTILINE)  # context, own file, old diff


@dataclass(frozen=True)
class Sink:
    path: str
    line: int
    text: str
    cwe: str
    title: str


def sinks(texts: dict[str, str]) -> dict[str, list[Sink]]:
    """path -> the sink lines of that file (the truth the stand-in reports from)."""
    out: dict[str, list[Sink]] = {}
    for path, text in texts.items():
        for number, line in enumerate(text.split("\n"), 1):
            for needle, cwe, title in SINKS:
                if needle in line and not line.strip().startswith("#"):
                    out.setdefault(path, []).append(Sink(path, number, line.strip(), cwe, title))
                    break
    return out


def seen_sinks(user: str, known: dict[str, list[Sink]]) -> list[Sink]:
    """The sinks whose line the prompt shows under its own file's header (own file, diff or context block)."""
    found: dict[tuple[str, int], Sink] = {}
    heads = [(m.start(), m.group(1)) for m in _HEADER.finditer(user)]
    for i, (start, path) in enumerate(heads):
        block = user[start:heads[i + 1][0] if i + 1 < len(heads) else len(user)]
        for sink in known.get(path, ()):
            if sink.text in block:
                found[(sink.path, sink.line)] = sink
    return list(found.values())


def answer(found: list[Sink]) -> str:
    return json.dumps({"summary": "Audited.", "findings": [
        {"path": s.path, "line": s.line, "start_line": None, "side": "RIGHT", "severity": "major",
         "category": "security", "title": s.title, "body": f"`{s.text[:80]}` may let untrusted input reach "
         "this sink; check every caller.", "suggestion": None, "confidence": 0.7, "cwe": s.cwe} for s in found]})


@dataclass
class Bill:
    """Every request of one audit (one affinity), priced as the fake model prices it."""

    seen: list[str] = field(default_factory=list)
    prompt: int = 0
    cached: int = 0
    completion: int = 0
    requests: int = 0

    def remember(self, messages: list[dict[str, Any]]) -> None:
        """A request an earlier audit of the same affinity sent: in the cache, not on this bill."""
        self.seen.append(json.dumps({"tools": TOOLS, "messages": messages}, ensure_ascii=False))

    def charge(self, messages: list[dict[str, Any]], completion: str) -> None:
        text = json.dumps({"tools": TOOLS, "messages": messages}, ensure_ascii=False)
        shared = max((galloping_prefix(text, earlier) for earlier in self.seen), default=0)
        self.seen.append(text)
        tokens = math.ceil(len(text) / CHARS_PER_TOKEN)
        self.prompt += tokens
        self.cached += min(tokens, shared // CHARS_PER_TOKEN // CACHE_BLOCK * CACHE_BLOCK)
        self.completion += math.ceil(len(completion) / CHARS_PER_TOKEN)
        self.requests += 1

    @property
    def usd(self) -> float:
        return cost(PRICE, self.prompt, self.cached, self.completion)

    @property
    def cache_share(self) -> float:
        return self.cached / self.prompt if self.prompt else 0.0


def verdicts(count: int) -> str:
    return json.dumps({"verdicts": [{"id": i, "verdict": "confirm", "severity": None,
                                     "reason": "stand-in: confirmed"} for i in range(1, count + 1)]})


def galloping_prefix(a: str, b: str) -> int:
    """common_prefix's answer at a cost that grows with the shared part, not with the strings' length (the
    benchmark compares hundreds of prompts of up to a megabyte each)."""
    size, limit = 1_024, min(len(a), len(b))
    while size < limit and a[:size] == b[:size]:
        size *= 2
    low = size // 2 if size > 1_024 else 0
    return low + common_prefix(a[low:min(size, limit)], b[low:min(size, limit)])
