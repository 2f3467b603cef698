"""What an audit covers, pure: files in scope, the changed ones since the branch's last audit (incremental), their
chunks, each chunk's estimated cost, and what a dollar cap leaves out."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pathspec

from reviewbot.audit.chunks import Chunk, auditable, plan_chunks
from reviewbot.catalogue import Price
from reviewbot.inference.pricing import cost

DIFF_OVERHEAD = 1.35  # the numbered diff of an added file is about a third longer than the file
PROMPT_OVERHEAD = 12_000  # system prompt, checklist, tool definitions, repository context
COMPLETION = 4_000
VERIFY_COMPLETION = 2_000
VERIFY_CACHED = 0.8  # a verification request re-sends its chunk's prompt: most of it comes from the cache


@dataclass(frozen=True)
class Selection:
    audit: list[str]  # files to send to the model
    carried: list[dict[str, Any]]  # findings of unchanged files, from the branch's last audit
    unchanged: list[str]
    in_scope: list[str]


@dataclass(frozen=True)
class Planned:
    chunks: list[Chunk]
    estimates: list[float]  # US dollars per chunk
    left_out: list[str] = field(default_factory=list)  # files over the dollar cap, not audited this time

    @property
    def estimate_usd(self) -> float:
        return round(sum(self.estimates), 4)


def in_scope(paths: Sequence[str], read: Callable[[str], str | None], scope: Sequence[str],
             ignore: Sequence[str]) -> list[str]:
    """Auditable files under any of `scope` (all when empty), minus the `ignore` globs (gitignore syntax)."""
    chosen = [p for p in auditable(paths, read) if under(p, scope)]
    if ignore:
        spec = pathspec.PathSpec.from_lines("gitwildmatch", list(ignore))
        chosen = [p for p in chosen if not spec.match_file(p)]
    return chosen


def under(path: str, scope: Sequence[str]) -> bool:
    """In one of the folders (or is one of the files) of `scope`; an empty scope is the whole repository."""
    prefixes = [s.strip("/") for s in scope if s.strip("/")]
    return not prefixes or any(path == s or path.startswith(s + "/") for s in prefixes)


def select(scoped: Sequence[str], blobs: Mapping[str, str], baseline: Mapping[str, dict[str, Any]],
           full: bool) -> Selection:
    """Files whose blob changed since the branch's last completed audit (all of them when `full` or there was
    none); the findings of the others are carried forward."""
    if full or not baseline:
        return Selection(list(scoped), [], [], list(scoped))
    audit, carried, unchanged = [], [], []
    for path in scoped:
        seen = baseline.get(path)
        if seen is not None and seen.get("blob") and seen["blob"] == blobs.get(path):
            unchanged.append(path)
            carried += list(seen.get("findings") or [])
        else:
            audit.append(path)
    return Selection(audit, carried, unchanged, list(scoped))


def chunk_estimate(chunk_tokens: int, price: Price | None, prompt_budget: int) -> float:
    """One chunk's review request and one verification request, at the model's prices."""
    if price is None:
        return 0.0
    prompt = min(prompt_budget, int(chunk_tokens * DIFF_OVERHEAD) + PROMPT_OVERHEAD)
    review = cost(price, prompt, 0, COMPLETION)
    verify = cost(price, prompt + COMPLETION, int(prompt * VERIFY_CACHED), VERIFY_COMPLETION)
    return review + verify


def plan(sizes: Mapping[str, int], chunk_tokens: int, price: Price | None, prompt_budget: int,
         max_usd: float | None) -> Planned:
    """Chunks in path order; under `max_usd`, the chunks past the cap are left out (their files listed)."""
    chunks = plan_chunks(sizes, chunk_tokens)
    kept: list[Chunk] = []
    estimates: list[float] = []
    left_out: list[str] = []
    for chunk in chunks:
        estimate = chunk_estimate(chunk.tokens, price, prompt_budget)
        if max_usd is not None and sum(estimates) + estimate > max_usd:
            left_out += chunk.paths
            continue
        kept.append(Chunk(len(kept), chunk.paths, chunk.tokens))
        estimates.append(estimate)
    return Planned(kept, estimates, left_out)
