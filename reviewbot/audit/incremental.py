"""An incremental re-audit's selection, pure: files whose blob changed since the last completed audit, the files
that call them or that they call, and which earlier findings carry forward untouched."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reviewbot.audit.callgraph import CallGraph
from reviewbot.review.findings.schema import Finding

MAX_RELATED = 6  # per changed file: its strongest callers and callees are audited again; the others are
# still shown to the model, as the context of the changed file's chunk


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
                       previous_graph: CallGraph | None = None) -> Selection:
    """`previous`/`current`: path -> git blob id of the files each audit covered; `graph`: the call graph of the
    current tree (a removed file's callers come from `previous_graph`, the one of the earlier tree, when given).
    With no previous state every file is audited: that is a full audit."""
    changed = tuple(sorted(p for p, blob in current.items() if previous.get(p) != blob))
    removed = tuple(sorted(p for p in previous if p not in current))
    touched = set(changed)
    related: set[str] = set()
    for path in changed:
        related.update(strongest(graph, path))
    for path in removed:
        related.update(strongest(previous_graph or graph, path))
    related = {p for p in related if p in current and p not in touched}
    audit = tuple(sorted(touched | related))
    carried = tuple(sorted(p for p in current if p not in touched and p not in related))
    return Selection(changed=changed, removed=removed, related=tuple(sorted(related)), audit=audit,
                     carried=carried)


def strongest(graph: CallGraph, path: str, count: int = MAX_RELATED) -> list[str]:
    """The files most strongly linked to `path`, either way (ties by path)."""
    weights = {other: w for other, w in graph.weight.get(path, {}).items()}
    for caller in graph.callers.get(path, ()):
        weights[caller] = max(weights.get(caller, 0.0), graph.weight[caller][path])
    return sorted(weights, key=lambda p: (-weights[p], p))[:count]


def carry_forward(findings: Sequence[Finding], selection: Selection) -> list[Finding]:
    """The earlier findings that stand: those in files this audit does not review again (findings in changed,
    related or removed files are replaced by what this audit finds)."""
    carried = set(selection.carried)
    return [f for f in findings if f.path in carried]
