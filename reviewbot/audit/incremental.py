"""An incremental re-audit's selection, pure: files whose blob changed since the last completed audit, the files
that call them or that they call, and which earlier findings carry forward untouched."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reviewbot.audit.callgraph import CallGraph
from reviewbot.review.findings.schema import Finding

MAX_RELATED = 6  # per changed file: its strongest callers and callees are audited again; the others are
# still shown to the model, as the context of the changed file's chunk
RELATED_SHARE = 0.5  # related files audited again: at most half the changed files' size (when sizes are given)


@dataclass(frozen=True)
class Selection:
    """`audit`: what this audit reviews (changed + related, sorted); `carried`: files of the new tree whose
    earlier findings stand as they were (their blob and every neighbour's are unchanged)."""

    changed: tuple[str, ...]  # added or modified since the previous audit
    removed: tuple[str, ...]
    related: tuple[str, ...]  # unchanged files that call or are called most by a changed or removed one
    audit: tuple[str, ...]
    carried: tuple[str, ...]

    @property
    def full(self) -> bool:
        return not self.carried


def select_incremental(previous: Mapping[str, str], current: Mapping[str, str], graph: CallGraph,
                       previous_graph: CallGraph | None = None, sizes: Mapping[str, int] | None = None) -> Selection:
    """`previous`/`current`: path -> git blob id of the files each audit covered; `graph`: the call graph of the
    current tree (a removed file's callers come from `previous_graph`, the earlier tree's, when given). Each
    changed file brings its MAX_RELATED strongest callers and callees; with `sizes` (path -> characters) they are
    taken strongest first only up to RELATED_SHARE of the changed files' size, so a small change stays small (the
    rest is still shown as context of the changed files' chunks). With no previous state everything is audited."""
    changed = tuple(sorted(p for p, blob in current.items() if previous.get(p) != blob))
    removed = tuple(sorted(p for p in previous if p not in current))
    touched = set(changed)
    links: dict[str, float] = {}
    for path, source in [(p, graph) for p in changed] + [(p, previous_graph or graph) for p in removed]:
        for other, weight in strongest(source, path):
            if other in current and other not in touched:
                links[other] = max(links.get(other, 0.0), weight)
    size = sizes or {}
    allowance = RELATED_SHARE * sum(size.get(p, 0) for p in changed) if sizes is not None else None
    related: list[str] = []
    for other in sorted(links, key=lambda p: (-links[p], size.get(p, 0), p)):
        if allowance is None or size.get(other, 0) <= allowance:
            related.append(other)
            allowance = None if allowance is None else allowance - size.get(other, 0)
    audit = tuple(sorted(touched | set(related)))
    carried = tuple(sorted(p for p in current if p not in touched and p not in related))
    return Selection(changed=changed, removed=removed, related=tuple(sorted(related)), audit=audit,
                     carried=carried)


def strongest(graph: CallGraph, path: str, count: int = MAX_RELATED) -> list[tuple[str, float]]:
    """The files most strongly linked to `path`, either way, with the link's weight (ties by path)."""
    weights = dict(graph.weight.get(path, {}))
    for caller in graph.callers.get(path, ()):
        weights[caller] = max(weights.get(caller, 0.0), graph.weight[caller][path])
    return sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:count]


def carry_forward(findings: Sequence[Finding], selection: Selection) -> list[Finding]:
    """The earlier findings that stand: those in files this audit does not review again (findings in changed,
    related or removed files are replaced by what this audit finds)."""
    carried = set(selection.carried)
    return [f for f in findings if f.path in carried]
