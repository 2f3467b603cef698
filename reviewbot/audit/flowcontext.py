"""The code of a candidate's whole flow for its verification, pure: the windows around the evidence lines it names in
other files, the definitions its function calls there, and the callers that feed it, within FLOW_TOKENS; and the
callee side of its evidence where the model gave none. `reviewbot audit` and the service's finishing job share it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from reviewbot.audit.answer_schema import MAX_EVIDENCE
from reviewbot.audit.callgraph import MAX_DEFINERS
from reviewbot.audit.contextblock import Block
from reviewbot.audit.evidence import Callers, first_use, note_text
from reviewbot.audit.factcache import FactCache, known_definitions, known_names
from reviewbot.audit.flowcalls import Callee, Defs, Locate, callees, innermost
from reviewbot.audit.gcpause import fewer_collections
from reviewbot.audit.pyfactcache import PythonFacts
from reviewbot.review.context.excerpts import plan_ranges, render_block
from reviewbot.review.context.index import RepoIndex
from reviewbot.review.context.snapshot import Snapshot
from reviewbot.review.context.store import IndexStore
from reviewbot.review.context.symbols import Definition
from reviewbot.review.findings.schema import EvidenceStep, Finding

# Per candidate, after the chunk's cached request: a sink one call away with its neighbours fits, a module does not.
CALLEE_LINES = 40  # of a callee's definition: enough to hold the sink the verifier must see
FLOW_TOKENS = 3_000
WINDOW = 4  # lines shown on each side of an evidence line or a caller's use
MAX_FLOW_CALLERS = 2
MAX_CALLEE_STEPS = 2  # evidence steps the callees add when the model named no line in their files
T = TypeVar("T")
FLOW_HEADER = "The code of its flow (evidence lines, definitions it calls, its callers; context from the tree):"


@dataclass(frozen=True)
class FlowSource:
    """What the flow is read from: the tree, each file's definitions, the index by name and each file's strongest
    callers (the local plan's call graph, or what a service audit's plan stored)."""

    read: Callable[[str], str | None]
    definitions: Defs
    locate: Locate
    callers: Callable[[str], Callers]
    lock: threading.Lock = field(default_factory=threading.Lock, compare=False)  # the index is not thread-safe
    python: PythonFacts = field(default_factory=PythonFacts, compare=False)  # Python modules' calls and imports

    def locked(self, work: Callable[[], T]) -> T:
        """`work` alone on this source (batches are checked at once, each reading the tree in a thread)."""
        with self.lock:
            return work()


@dataclass(frozen=True)
class Flow:
    blocks: tuple[Block, ...]
    callees: tuple[Callee, ...]
    function: str = ""


def tree_source(snapshot: Snapshot, callers: Callable[[str], Callers], store: IndexStore | None = None,
                facts: FactCache | None = None) -> FlowSource:
    """A flow source over a tree: definitions parsed as asked, names found through the repository index. Only the
    tree's listed files are read: a name the verifier asks for, or an import, never reaches an ignored `.env`.
    `store`: the context index's store, so the tree's identifiers and definitions are per blob (a verification
    indexes and parses only the content no earlier one saw), not scanned from the whole tree each time; `facts`: the
    plan's facts cache, whose definitions it reads before parsing (both need a snapshot that knows blob ids)."""
    files = frozenset(snapshot.paths())
    # The whole tree at once, not a review's nearest share: a name is located as a scan of every file finds it.
    index = RepoIndex(snapshot, skip=lambda _: False, store=store, per_review=len(files),
                      known=known_definitions(facts) if facts is not None else None,
                      known_names=known_names(facts) if facts is not None else None)

    def read(path: str) -> str | None:  # kept by the index: a flow's files are read again for every block
        return index.text(path) if path in files else None

    def definitions(path: str) -> Sequence[Definition]:
        parsed = index.parsed(path, force=True)
        return parsed.definitions if parsed is not None else ()

    def locate(name: str, near: str) -> Sequence[tuple[str, Definition]]:
        return index.definitions_of(name, near, limit=MAX_DEFINERS + 1)  # more than that is ambiguous anyway

    return FlowSource(read, definitions, locate, callers, python=PythonFacts(facts))


def plan_flow(finding: Finding, source: FlowSource, budget: int = FLOW_TOKENS) -> Flow:
    with fewer_collections():  # the first one indexes the tree and may parse modules: CPU-bound
        return _plan_flow(finding, source, budget)


def _plan_flow(finding: Finding, source: FlowSource, budget: int) -> Flow:
    text = source.read(finding.path)
    function = innermost(source.definitions(finding.path), finding.line) if text is not None else None
    called = callees(finding.path, text or "", function, source.definitions, source.read, source.locate,
                     facts=source.python) if function is not None else []
    source.python.save()
    wanted: list[Block] = []
    for step in finding.evidence:
        if step.path != finding.path:
            wanted.append(Block(step.path, ((step.line - WINDOW, step.line + WINDOW),), f"its {step.role} line"))
    for callee in called:
        d = callee.definition
        wanted.append(Block(callee.path, ((d.start, min(d.end, d.start + CALLEE_LINES)),),
                            f"defines `{callee.name}`, called at {finding.path}:{callee.line}"))
    name = function.name if function is not None else ""
    for caller in [c for c, _, names in source.callers(finding.path) if name and name in names][:MAX_FLOW_CALLERS]:
        if line := first_use(source.read(caller) or "", name):
            wanted.append(Block(caller, ((line - WINDOW, line + WINDOW),), f"calls `{name}`"))
    return Flow(fitted(wanted, source.read, budget), tuple(called), name)


def fitted(wanted: Sequence[Block], read: Callable[[str], str | None], budget: int) -> tuple[Block, ...]:
    """The blocks in order while the budget lasts, each file's ranges bounded by the file (a block already shown
    whole, or a range inside one shown, is not repeated)."""
    left, kept = budget * 4, []
    shown: dict[str, list[tuple[int, int]] | None] = {}
    for block in wanted:
        text = read(block.path)
        if text is None or block.ranges is None:
            continue
        total = text.count("\n") + 1
        ranges = tuple((max(1, a), min(total, b)) for a, b in block.ranges if a <= total)
        earlier = shown.get(block.path, [])
        if not ranges or earlier is None or all(any(x <= a and b <= y for x, y in earlier) for a, b in ranges):
            continue
        planned = plan_ranges(text, ranges)
        size = len(render_block(block.path, text, None, planned, block.reason))
        if size <= left:
            kept.append(Block(block.path, planned, block.reason))
            shown[block.path] = None if planned is None else [*earlier, *planned]
            left -= size
    return tuple(kept)


def render_flow(blocks: Sequence[Block], read: Callable[[str], str | None], header: str = FLOW_HEADER) -> str:
    rendered = [render_block(b.path, text, None, b.ranges, b.reason) for b in blocks
                if (text := read(b.path)) is not None]
    return "\n\n".join([header, *rendered]) if rendered else ""


def asked_code(needs: Sequence[str], near: str, source: FlowSource, shown: Sequence[Block],
               budget: int = FLOW_TOKENS) -> tuple[Block, ...]:
    """The code a verifier named (files, or symbols such as `run_query` or `helpers.run_query`) that the tree has
    and the first request did not show; () when none can be found."""
    wanted: list[Block] = []
    for need in needs[:MAX_EVIDENCE]:
        need = need.strip().strip("`").removeprefix("./")
        if (text := source.read(need)) is not None:
            wanted.append(Block(need, ((1, min(text.count("\n") + 1, CALLEE_LINES * 2)),), "asked for"))
            continue
        name = need.replace("::", ".").rsplit(".", 1)[-1].removesuffix("()")
        for path, d in list(source.locate(name, near))[:2] if name else []:
            wanted.append(Block(path, ((d.start, min(d.end, d.start + CALLEE_LINES)),),
                                f"defines `{name}`, asked for"))
    before = {(b.path, b.ranges) for b in shown}
    return tuple(b for b in fitted(wanted, source.read, budget) if (b.path, b.ranges) not in before)


def with_callee_steps(finding: Finding, flow: Flow) -> Finding:
    """The finding with where its function's callees are defined as steps, when the model's evidence names no line
    of their files: the verifier and the published flow then reach the sink's side."""
    named = {e.path for e in finding.evidence}
    steps = [EvidenceStep(path=c.path, line=c.definition.start, role="step",
                          note=note_text(f"{c.name}, called by {flow.function}"))
             for c in flow.callees if c.path not in named][:MAX_CALLEE_STEPS]
    return finding.model_copy(update={"evidence": (*finding.evidence, *steps)}) if steps else finding
