"""An audit's plan, pure: which files, the call graph between them, chunks cut along it, the overview and prefix
shared by every chunk, and the estimated cost. Both `reviewbot audit` and the service's planning job use it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from reviewbot.audit.callgraph import CallGraph, build_graph
from reviewbot.audit.chunkcontext import CONTEXT_TOKENS, NO_ROLES, Lined, plan_context
from reviewbot.audit.chunkprompt import Prefix, audit_prefix, render_chunk
from reviewbot.audit.chunks import AUDIT_CHUNK_TOKENS, Chunk, auditable
from reviewbot.audit.clusters import graph_chunks
from reviewbot.audit.contextblock import Block
from reviewbot.audit.elision import Ranges
from reviewbot.audit.factcache import FactCache, Parse, file_facts
from reviewbot.audit.flowpaths import find_flows
from reviewbot.audit.flowrequests import MAX_FLOW_REQUESTS, flow_chunks
from reviewbot.audit.flows import Roles, flow_graph, flow_roles
from reviewbot.audit.gcpause import fewer_collections
from reviewbot.audit.overview import build_overview
from reviewbot.audit.pyfactcache import PythonFacts
from reviewbot.inference.pricing import cost
from reviewbot.review.context.snapshot import MAX_TEXT_BYTES, Snapshot
from reviewbot.review.context.symbols import Definition, Parsed, parse
from reviewbot.review.prompt.sections import CHARS_PER_TOKEN, estimate_tokens
from reviewbot.review.prompt.tooldefs import TOOL_DEFINITIONS_JSON
from reviewbot.settings.catalogue import Price

Definitions = Parse  # (path, text) -> what the file defines (or the parse that found it, with its tree)
Select = Callable[[CallGraph, Mapping[str, int]], Collection[str] | None]  # (graph, sizes) -> files to audit
ANSWER_TOKENS = 1_500  # expected per chunk's review answer, for the estimate
LINKING_KINDS = frozenset({"function", "method", "class", "type", "constant"})


@dataclass(frozen=True)
class Estimate:
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    cost_usd: float


@dataclass(frozen=True)
class AuditPlan:
    files: tuple[str, ...]
    sizes: Mapping[str, int]
    chunks: tuple[Chunk, ...]
    graph: CallGraph
    definitions: Mapping[str, tuple[Definition, ...]]
    overview: str
    prefix: Prefix
    tools: bool = True
    elided: Mapping[str, Ranges] = field(default_factory=dict)  # lines each file's prompt leaves out
    roles: Roles = NO_ROLES
    planned: dict[tuple[str, ...], list[Block]] = field(default_factory=dict, compare=False, repr=False)

    def messages(self, chunk: Chunk, read: Callable[[str], str | None]) -> list[dict[str, str]]:
        return render_chunk(self.prefix, chunk, len(self.chunks), read, self.context(chunk, read),
                            self.chunk_elided(chunk))

    def context(self, chunk: Chunk, read: Callable[[str], str | None],
                files: dict[str, Lined] | None = None) -> list[Block]:
        """What links the chunk to the rest of the repository, planned once per chunk (a verification request
        renders its chunk's request again, as the service renders it from the plan it stored). `files`: the files
        an earlier chunk's planning split, shared by the chunks planned together."""
        if not chunk.paths:  # a flow's request: its pieces are all it shows
            return list(chunk.flow)
        if chunk.paths not in self.planned:
            self.planned[chunk.paths] = plan_context(chunk, read, self.graph, self.definitions, roles=self.roles,
                                                     files=files)
        return self.planned[chunk.paths]

    def chunk_elided(self, chunk: Chunk) -> dict[str, Ranges]:
        """The elided lines of the chunk's own files (a service audit keeps them in its plan)."""
        return {p: r for p in chunk.paths if (r := self.elided.get(p))}

    @property
    def prefix_tokens(self) -> int:
        tools = estimate_tokens(TOOL_DEFINITIONS_JSON) if self.tools else 0
        return estimate_tokens(self.prefix.system) + estimate_tokens(self.prefix.head) + tools

    def estimate(self, price: Price, context_tokens: int = CONTEXT_TOKENS) -> Estimate:
        """Before any request: each chunk sends the prefix (cached after the first) and its code with line
        numbers (about a tenth more) and context; verification is not included (it depends on the findings)."""
        prompt = sum(self.prefix_tokens + int(c.tokens * 1.1) + self.context_allowance(c, context_tokens)
                     for c in self.chunks)
        cached = self.prefix_tokens * max(0, len(self.chunks) - 1)
        completion = ANSWER_TOKENS * len(self.chunks)
        return Estimate(prompt, cached, completion, round(cost(price, prompt, cached, completion), 4))

    def context_allowance(self, chunk: Chunk, context_tokens: int = CONTEXT_TOKENS) -> int:
        """The context a chunk's request may add: at most the code outside the chunk (a tiny repository has little
        to show), none for a flow's request (its pieces are counted in its own tokens)."""
        if not chunk.paths:
            return 0
        own = frozenset(chunk.paths)
        outside = sum(size for path, size in self.sizes.items() if path not in own)
        return min(context_tokens, int(outside / CHARS_PER_TOKEN))

    def chunk_estimate(self, chunk: Chunk, price: Price | None, *, first: bool,
                       context_tokens: int = CONTEXT_TOKENS) -> Estimate:
        """`estimate` for one chunk (the first pays for the prefix, the others read it from the cache), for a cap
        that leaves whole chunks out; no price (a model the catalogue does not know) costs nothing."""
        prompt = self.prefix_tokens + int(chunk.tokens * 1.1) + self.context_allowance(chunk, context_tokens)
        cached = 0 if first else self.prefix_tokens
        usd = cost(price, prompt, cached, ANSWER_TOKENS) if price is not None else 0.0
        return Estimate(prompt, cached, ANSWER_TOKENS, usd)


def parsed_definitions(path: str, text: str) -> Parsed:
    return parse(path, text)


def plan_audit(snapshot: Snapshot, directory: str = "", *, chunk_tokens: int = AUDIT_CHUNK_TOKENS,
               only: Collection[str] | None = None, definitions: Definitions = parsed_definitions,
               tools: bool = True, select: Select | None = None, facts_cache: FactCache | None = None) -> AuditPlan:
    """The whole plan from a snapshot. `only`: audit just these files (an incremental audit's selection); the
    graph and the overview still cover the whole tree, so the prefix stays the same bytes as the full audit's.
    `select`: the files to audit chosen from the call graph and the sizes (e.g. `select_incremental`), as `only`.
    `facts_cache`: each file's definitions and identifiers by content, so only blobs not seen before are parsed."""
    with fewer_collections():
        return _plan_audit(snapshot, directory, chunk_tokens, only, definitions, tools, select, facts_cache)


def _plan_audit(snapshot: Snapshot, directory: str, chunk_tokens: int, only: Collection[str] | None,
                definitions: Definitions, tools: bool, select: Select | None,
                facts_cache: FactCache | None) -> AuditPlan:
    paths = auditable(snapshot.paths(), snapshot.read, directory)
    texts = {p: t for p in paths if (t := snapshot.read(p)) is not None and 0 < len(t) <= MAX_TEXT_BYTES}
    defined, graph, elided, roles = facts(texts, definitions, cache=facts_cache)
    sizes = {p: len(t) for p, t in texts.items()}
    if select is not None:
        only = select(graph, sizes)
    chosen = {p: s for p, s in sizes.items() if only is None or p in only}
    chunks = tuple(graph_chunks(chosen, flow_graph(graph, roles), chunk_tokens))
    overview = build_overview(sorted(texts), sizes, defined, graph)
    plan = AuditPlan(files=tuple(sorted(chosen)), sizes=sizes, chunks=chunks, graph=graph, definitions=defined,
                     overview=overview, prefix=audit_prefix(overview, tools), tools=tools, elided=elided,
                     roles=roles)
    return with_flow_requests(plan, texts, python=PythonFacts(facts_cache))


def with_flow_requests(plan: AuditPlan, texts: Mapping[str, str], most: int = MAX_FLOW_REQUESTS,
                       python: PythonFacts | None = None) -> AuditPlan:
    """The plan with one more part per known flow (input read → functions between → sink) that starts in an
    audited file and that no chunk's request (its files and planned context) holds whole. `texts`: every file
    the plan's graph knows, as read (the chunks' contexts are planned from them)."""
    flows = find_flows(texts, plan.definitions, plan.files, python)
    if not flows or most <= 0:
        return plan
    files: dict[str, Lined] = {}  # a file links several chunks: read and split once (the plan's texts, as read)
    contexts = [plan.context(c, texts.get, files) for c in plan.chunks]
    extra = flow_chunks(flows, plan.chunks, contexts, texts, most=most)
    return dataclasses.replace(plan, chunks=(*plan.chunks, *extra), planned=plan.planned)


def facts(texts: Mapping[str, str], definitions: Definitions, *, cache: FactCache | None = None,
          ) -> tuple[dict[str, tuple[Definition, ...]], CallGraph, dict[str, Ranges], Roles]:
    """Each file's definitions, the graph of who uses whose names, the lines its prompt leaves out and where
    input enters and sinks are used (one parse and one scan per file whose content the cache does not know)."""
    known = file_facts(texts, definitions, cache)
    defined = {p: f.definitions for p, f in known.items()}
    names = {p: [d.name for d in defs if d.kind in LINKING_KINDS] for p, defs in defined.items()}
    functions = {p: [d.name for d in defs if d.kind == "function" and d.parent is None] for p, defs in defined.items()}
    used = {p: f.names for p, f in known.items()}
    graph = build_graph(names, used, functions)
    return defined, graph, {p: f.elided for p, f in known.items() if f.elided}, flow_roles(used)
