"""An audit finding's evidence lines, pure: the model's (untrusted) kept only where they name a line of a file of
the audited tree, with a one-line plain note, then the call graph's (what the audit stores and publishes)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from reviewbot.audit.answer_schema import MAX_EVIDENCE
from reviewbot.audit.callgraph import CallGraph
from reviewbot.audit.sarif_results import safe_path
from reviewbot.review.context.index import IDENT
from reviewbot.review.context.snapshot import Snapshot
from reviewbot.review.context.symbols import Definition, parse
from reviewbot.review.findings.schema import EvidenceStep, Finding
from reviewbot.review.publish.markdown import plain

MAX_NOTE = 160  # characters: a note says what the line does, the finding's body says the rest
MAX_CALLERS = 2  # call-graph evidence per finding: the strongest callers only (names can mislead)


@dataclass
class EvidenceCheck:
    """Checks the evidence of one audit's candidates against its tree; `dropped` counts what was left out."""

    read: Callable[[str], str | None]
    files: Collection[str]  # the audited tree's files: evidence elsewhere is dropped
    dropped: int = 0
    _lines: dict[str, int] = field(default_factory=dict)

    def __call__(self, finding: Finding) -> Finding:
        """The finding with only its usable evidence: a file of the tree (no absolute path, no `..`, no URL), a line
        the file has, once per (path, line), at most MAX_EVIDENCE; the rest is counted in `dropped`."""
        kept: list[EvidenceStep] = []
        seen: set[tuple[str, int]] = set()
        for step in finding.evidence:
            path = step.path.removeprefix("./")
            if len(kept) < MAX_EVIDENCE and safe_path(path) and path in self.files and \
                    1 <= step.line <= self._count(path) and (path, step.line) not in seen:
                seen.add((path, step.line))
                kept.append(EvidenceStep(path=path, line=step.line, role=step.role, note=note_text(step.note)))
        self.dropped += len(finding.evidence) - len(kept)
        return finding.model_copy(update={"evidence": tuple(kept)}) if finding.evidence else finding

    def _count(self, path: str) -> int:
        if path not in self._lines:
            text = self.read(path)
            self._lines[path] = 0 if text is None else len(text.split("\n")) - text.endswith("\n")
        return self._lines[path]


Callers = Sequence[tuple[str, float, Sequence[str]]]  # calling file, edge weight, the names it uses
CALLER_POOL = 16  # callers kept per audited file while a service audit runs (the strongest; the step is the top 2)


def callers_of(graph: CallGraph, path: str, limit: int | None = None) -> list[tuple[str, float, list[str]]]:
    """The files that call `path`, strongest first, with the names they use: all `with_caller_steps` needs of the
    graph (a service audit keeps the strongest `limit` per audited file, not the graph, for its chunk jobs)."""
    found = sorted(((c, graph.weight[c][path], list(graph.uses[c][path])) for c in graph.callers.get(path, ())),
                   key=lambda c: (-c[1], c[0]))
    return found[:limit] if limit is not None else found


def with_callers(finding: Finding, graph: CallGraph, definitions: Mapping[str, Sequence[Definition]],
                 read: Callable[[str], str | None]) -> Finding:
    return with_caller_steps(finding, callers_of(graph, finding.path), definitions.get(finding.path, ()), read)


def with_caller_steps(finding: Finding, callers: Callers, definitions: Sequence[Definition],
                      read: Callable[[str], str | None]) -> Finding:
    """The finding with the call graph's evidence after the model's: where the strongest callers of the definition
    around it call it (the first line using its name), as steps; a line the model gave already is not repeated."""
    around = [d for d in definitions if d.start <= finding.line <= d.end]
    if not around:
        return finding
    name = min(around, key=lambda d: (d.end - d.start, d.start)).name  # the innermost: a method, not its class
    chosen = [caller for caller, _, names in callers if name in names][:MAX_CALLERS]
    given = {(e.path, e.line) for e in finding.evidence}
    found = []
    for caller in chosen:
        line = first_use(read(caller) or "", name)
        if line and (caller, line) not in given:
            found.append(EvidenceStep(path=caller, line=line, role="step", note=note_text(f"calls {name}")))
    return finding.model_copy(update={"evidence": (*finding.evidence, *found)}) if found else finding


def with_stored_callers(findings: Sequence[Finding], callers: Mapping[str, Callers],
                        read: Callable[[str], str | None]) -> list[Finding]:
    """`with_caller_steps` in a service chunk job: callers as the plan stored them, the definitions of each
    finding's file parsed here (one file, not the tree)."""
    definitions: dict[str, Sequence[Definition]] = {}
    out = []
    for finding in findings:
        if finding.path not in definitions:
            text = read(finding.path)
            definitions[finding.path] = parse(finding.path, text).definitions if text is not None else ()
        out.append(with_caller_steps(finding, callers.get(finding.path, ()), definitions[finding.path], read))
    return out


def first_use(text: str, name: str) -> int | None:
    """The first line that calls `name` (`name(`), else the first that names it (an import, a reference)."""
    named = None
    for number, line in enumerate(text.split("\n"), 1):
        if name in line and name in IDENT.findall(line):
            if f"{name}(" in line:
                return number
            named = named or number
    return named


def note_text(note: str) -> str:
    """One line of plain text: no pings, no secrets, bounded (each place that shows it escapes it again)."""
    text = " ".join(plain(note).split())
    return text if len(text) <= MAX_NOTE else text[:MAX_NOTE - 1].rstrip() + "…"


def checked(findings: Iterable[Finding], snapshot: Snapshot) -> tuple[list[Finding], int]:
    """One answer's findings with their evidence checked against the tree, and how many lines were dropped (reads
    files: the service calls it in a thread)."""
    check = EvidenceCheck(snapshot.read, frozenset(snapshot.paths()))
    return [check(f) for f in findings], check.dropped
