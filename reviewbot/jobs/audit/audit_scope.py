"""What a service audit covers, pure: files in scope, the incremental selection (changed files and their callers
and callees, from the call graph), the planner's chunks with each one's context planned, the cost cap, and the
record every worker builds a chunk's request from without parsing the tree again."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from pathspec import GitIgnoreSpec

from reviewbot.audit.callgraph import CallGraph
from reviewbot.audit.chunks import Chunk, Listed, auditable
from reviewbot.audit.factcache import Counted, FactCache
from reviewbot.audit.incremental import Selection, select_incremental
from reviewbot.audit.planner import AuditPlan, Definitions, parsed_definitions, plan_audit
from reviewbot.audit.service_record import PlannedChunk
from reviewbot.review.context.snapshot import Snapshot
from reviewbot.settings.catalogue import Price


@dataclasses.dataclass(frozen=True)
class Scoped:
    """The plan as the record keeps it: chunks past `max_usd` are left out (their files listed)."""

    plan: AuditPlan
    chunks: list[PlannedChunk]
    contexts: list[list[list[Any]]]  # per chunk, its context blocks as planned (JSON)
    left_out: list[str]
    selection: Selection | None  # None: a full audit
    parsed: int = 0  # files parsed while planning: those whose content the facts cache did not know
    elided: list[dict[str, list[list[int]]]] = dataclasses.field(default_factory=list)  # per chunk: path -> ranges

    @property
    def requests(self) -> dict[str, Any]:
        """What a worker renders every chunk's request from (`chunk_input.chunk_request`): no file contents."""
        return {"prefix": {"system": self.plan.prefix.system, "head": self.plan.prefix.head},
                "context": self.contexts, "elided": self.elided}

    @property
    def estimate_usd(self) -> float:
        return round(sum(float(c.estimate_usd) for c in self.chunks), 4)

    @property
    def estimate_tokens(self) -> int:
        return sum(int(c.estimate_tokens) for c in self.chunks)


def in_scope(paths: Sequence[str], read: Callable[[str], str | None], scope: Sequence[str],
             ignore: Sequence[str]) -> list[str]:
    """Auditable files under any of `scope` (all when empty), minus the `ignore` globs (gitignore syntax)."""
    chosen = [p for p in auditable(paths, read) if under(p, scope)]
    if ignore:
        spec = GitIgnoreSpec.from_lines(list(ignore))
        chosen = [p for p in chosen if not spec.match_file(p)]
    return chosen


def under(path: str, scope: Sequence[str]) -> bool:
    """In one of the folders (or is one of the files) of `scope`; an empty scope is the whole repository."""
    prefixes = [s.strip("/") for s in scope if s.strip("/")]
    return not prefixes or any(path == s or path.startswith(s + "/") for s in prefixes)


def plan_scope(snapshot: Snapshot, scoped: Sequence[str], blobs: Mapping[str, str],
               previous: Mapping[str, str] | None, *, chunk_tokens: int, price: Price | None,
               max_usd: float | None, definitions: Definitions = parsed_definitions,
               facts_cache: FactCache | None = None) -> Scoped:
    """The planner over the files in scope. `previous` (path -> blob of the branch's last completed audit, None
    for a full audit): only changed files and the files that call them or that they call are audited."""
    chosen: list[Selection] = []

    def select(graph: CallGraph, sizes: Mapping[str, int]) -> Collection[str] | None:
        if previous is None:
            return None
        chosen.append(select_incremental(previous, {p: blobs.get(p, "") for p in sizes}, graph, sizes=sizes))
        return chosen[0].audit

    counted = Counted(definitions)
    plan = plan_audit(Listed(snapshot, scoped), definitions=counted, chunk_tokens=chunk_tokens, select=select,
                      facts_cache=facts_cache)
    kept: list[Chunk] = []
    estimates: list[tuple[float, int]] = []
    left_out: list[str] = []
    for chunk in plan.chunks:
        estimate = plan.chunk_estimate(chunk, price, first=not kept)
        if max_usd is not None and sum(e for e, _ in estimates) + estimate.cost_usd > max_usd:
            left_out += chunk.paths
            continue
        kept.append(dataclasses.replace(chunk, index=len(kept)))
        estimates.append((estimate.cost_usd, estimate.prompt_tokens + estimate.completion_tokens))
    plan = dataclasses.replace(plan, chunks=tuple(kept))
    chunks = [PlannedChunk(c.index, list(c.paths), c.tokens, round(usd, 4), tokens)
              for c, (usd, tokens) in zip(kept, estimates, strict=True)]
    contexts = [[b.as_json() for b in plan.context(c, snapshot.read)] for c in kept]
    elided = [{p: [list(r) for r in ranges] for p, ranges in plan.chunk_elided(c).items()} for c in kept]
    return Scoped(plan, chunks, contexts, left_out, chosen[0] if chosen else None, counted.count, elided)
