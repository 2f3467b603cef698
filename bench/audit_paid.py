"""What the fake model's own log says an audit paid for: its queue submissions keyed by chunk or verification batch
(a key submitted twice was paid twice), the billed tokens and their cost at K2.6 prices."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from bench.audit_standin import PRICE
from reviewbot.inference.pricing import cost
from tests.fakes.model import VERIFY_HEADER, verification_candidates

# The planner's part header (reviewbot.audit.chunkprompt.PART_HEADER), or the title of the older added-file prompts.
_PART = re.compile(r"(?:^## Part|Security audit of [^\n]{0,300}?, part) (\d+) of (\d+)", re.MULTILINE)


def request_key(request: dict[str, Any]) -> str:
    """Which piece of work a queued request is: `chunk part N of M` when its first user message names the part
    (every chunk prompt does), `verify <digest>` for a verification batch (its candidates' block and every message
    after it, such as the candidates' flow code), else the digest of the messages after the shared system prompt. The
    same work asked again gets the same key."""
    messages = [m for m in request.get("messages") or [] if isinstance(m, dict)]
    users = [str(m.get("content")) for m in messages if m.get("role") == "user"]
    if verification_candidates(request) is not None:
        # Not the last user message alone: a verification batch may end with a part every batch shares.
        start = next(i for i, text in enumerate(users) if text.startswith(VERIFY_HEADER))
        return "verify " + _digest(json.dumps(users[start:]))
    if users and (part := _PART.search(users[0])) is not None:
        return f"chunk part {part.group(1)} of {part.group(2)}"
    return "request " + _digest(json.dumps(messages[1:], sort_keys=True))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Paid:
    """The requests an audit put in the provider's queue and the tokens the provider billed."""

    submitted: int  # every submission: the provider runs, and bills, each one it accepted
    keys: Counter[str]  # work key -> times submitted
    served: int  # answers the fake computed (each billed once, however often it is polled)
    prompt: int
    cached: int
    completion: int

    @property
    def twice(self) -> list[str]:
        return sorted(k for k, n in self.keys.items() if n > 1)

    @property
    def chunks(self) -> int:
        return sum(1 for k in self.keys if not k.startswith("verify "))

    @property
    def verifications(self) -> int:
        return sum(1 for k in self.keys if k.startswith("verify "))

    @property
    def cache_share(self) -> float:
        return self.cached / self.prompt if self.prompt else 0.0

    @property
    def usd(self) -> float:
        return cost(PRICE, self.prompt, self.cached, self.completion)


def paid(async_calls: list[dict[str, Any]], served: list[dict[str, Any]]) -> Paid:
    """From FakeModel.async_calls (submissions and polls) and FakeModel.served (each answer's usage)."""
    submissions = [c["requests"][0] for c in async_calls if isinstance(c.get("requests"), list) and c["requests"]]
    usage = [s["usage"] for s in served]
    return Paid(submitted=len(submissions), keys=Counter(request_key(r) for r in submissions), served=len(served),
                prompt=sum(int(u["prompt_tokens"]) for u in usage),
                cached=sum(int(u["prompt_tokens_details"]["cached_tokens"]) for u in usage),
                completion=sum(int(u["completion_tokens"]) for u in usage))


def cpu_seconds(stat: str, ticks: int) -> float:
    """user+sys of a process and its waited-for children from the text of /proc/<pid>/stat."""
    fields = stat.rsplit(")", 1)[1].split()  # the command name (field 2) may hold spaces and parentheses
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / ticks  # utime, stime, cutime, cstime


def handed_over(killed_log: str, survivor_log: str) -> tuple[int, int]:
    """(chunk jobs the killed worker had started and not settled, how many of those whose request it had already
    queued the survivor settled): from the workers' JSON logs (arq's `→`/`●` lines and the queue's log line)."""
    def chunks(text: str, mark: str) -> set[str]:
        found = set()
        for line in text.splitlines():
            entry = json.loads(line) if line.startswith("{") else {}
            where = f"{entry.get('msg', '')} {entry.get('job_id', '')}"
            if mark in str(entry.get("msg", "")) and (m := _CHUNK_JOB.search(where)) is not None:
                found.add(m.group(1))
        return found

    unsettled = chunks(killed_log, "→") - chunks(killed_log, "●")
    queued = chunks(killed_log, "queued asynchronously")
    return len(unsettled), len(unsettled & queued & chunks(survivor_log, "●"))


_CHUNK_JOB = re.compile(r"audit-chunk:\w+:(\d+)")
