"""The audit's plan and cost on real code: Django 5.2.2's `django/` package from PyPI, before and after the planner
of issue 23, against the offline stand-in (bench/audit_standin.py); and the incremental re-audit 5.2.1 → 5.2.2.

    .venv/bin/python -m bench.audit_plan [--write-readme] [--skip-before] [--repeat N]

Before: what `reviewbot audit` did until now, rebuilt here from the review engine it used (chunks in path order,
each shown as an added-file diff with the review's context selection, verified chunk by chunk). After:
reviewbot.audit.planner (chunks cut by the call graph, a byte-identical prefix, candidates merged across chunks
before one verification each). CPU seconds count building every request (planning included), not the stand-in.
Files are read from an export of the release on disk, as the local command and the workers read theirs. The
incremental re-audit is measured as a user meets it: the audit of 5.2.1 ran before, so the facts cache
(reviewbot/audit/factstore.py) holds 5.2.1's files and the context index's store the identifiers of its tree (its
verification indexed them); and cold, with both empty; best of --repeat runs each, the full audit's too.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bench.audit_planted import findable
from bench.audit_recall import callee_recall, caller_recall
from bench.audit_standin import Bill, answer, seen_sinks, sinks, verdicts
from bench.readme import write_section
from bench.realcode import django_repo, tree_files
from reviewbot.audit.batches import batch_messages, verification_batches
from reviewbot.audit.chunks import Without, added_diff, auditable, plan_chunks
from reviewbot.audit.dedup import dedupe
from reviewbot.audit.evidence import callers_of
from reviewbot.audit.factcache import Counted, FactCache
from reviewbot.audit.factstore import SqliteFacts
from reviewbot.audit.flowcontext import plan_flow, render_flow, tree_source, with_callee_steps
from reviewbot.audit.incremental import select_incremental
from reviewbot.audit.planner import AuditPlan, parsed_definitions, plan_audit
from reviewbot.repos.dirsnapshot import DirSnapshot
from reviewbot.repos.index_store import SqliteIndex
from reviewbot.review.config import context_options, parse_config, with_security
from reviewbot.review.context.snapshot import MemorySnapshot, Snapshot
from reviewbot.review.context.store import IndexStore
from reviewbot.review.diff.parse import parse_diff
from reviewbot.review.findings.precision import Precision
from reviewbot.review.findings.schema import parse_review_output
from reviewbot.review.findings.verification import BATCH, verification_messages
from reviewbot.review.prompt.plan import build_plan
from reviewbot.review.prompt.sections import PromptInput

DIRECTORY = "django"
OLD_DESCRIPTION = ("Not a pull request: a security audit of existing code. Every file of this part is shown as "
                   "added, so that all of it is reviewed; judge the code as it is.")


@dataclass
class Run:
    name: str
    chunks: int
    bill: Bill
    cpu: float
    plan_wall: float
    reported: Counter[tuple[str, int, str]]  # (path, line, cwe) -> times it appears in the report
    prompts: dict[int, str]  # chunk -> its user message (for the recall check)
    home: dict[str, int]
    parsed: int | None = None  # files tree-sitter parsed while planning (the rest came from the facts cache)

    @property
    def twice(self) -> int:
        return sum(1 for n in self.reported.values() if n > 1)


def export(repo: Path, ref: str, into: Path) -> Path:
    """The release's files on disk (`git archive`), read as the local command and the workers read a tree."""
    data = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", ref], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def before(snapshot: Snapshot, known: dict[str, list]) -> Run:  # type: ignore[type-arg]
    cpu, wall = time.process_time(), time.perf_counter()
    paths = auditable(snapshot.paths(), snapshot.read, DIRECTORY)
    sizes = {p: len((snapshot.read(p) or "").encode()) for p in paths if snapshot.read(p)}
    chunks = plan_chunks(sizes)
    plan_wall = time.perf_counter() - wall
    config = with_security(parse_config(None).config)
    bill, reported, prompts, spent = Bill(), Counter[tuple[str, int, str]](), {}, time.process_time() - cpu
    for chunk in chunks:
        start = time.process_time()
        files = {p: t for p in chunk.paths if (t := snapshot.read(p)) is not None}
        diff = parse_diff(added_diff(files))
        prompt = PromptInput(title=f"Security audit of {DIRECTORY}, part {chunk.index + 1} of {len(chunks)}",
                             description=OLD_DESCRIPTION, diff=diff, base_files={},
                             snapshot=Without(snapshot, chunk.paths),
                             options=context_options(config, 100_000, list(chunk.paths), tools=True))
        messages = build_plan(prompt).prompt.messages
        spent += time.process_time() - start
        prompts[chunk.index] = messages[1]["content"]
        text = answer(seen_sinks(messages[1]["content"], known))
        bill.charge(messages, text)
        found = parse_review_output(text).findings
        for i in range(0, len(found), BATCH):
            start = time.process_time()
            asked = verification_messages(messages, found[i:i + BATCH], diff, snapshot.read)
            spent += time.process_time() - start
            bill.charge(asked, verdicts(len(found[i:i + BATCH])))
        reported.update((f.path, f.line, f.cwe or "") for f in found)
    return Run("before", len(chunks), bill, spent, plan_wall, reported, prompts,
               {p: c.index for c in chunks for p in c.paths})


def after(snapshot: Snapshot, known: dict[str, list], only: tuple[str, ...] | None = None,  # type: ignore[type-arg]
          name: str = "after", cache: FactCache | None = None, earlier: Bill | None = None,
          index: IndexStore | None = None) -> tuple[Run, AuditPlan]:
    parser = Counted(parsed_definitions)
    cpu, wall = time.process_time(), time.perf_counter()
    plan = plan_audit(snapshot, DIRECTORY, only=only, definitions=parser, facts_cache=cache)
    plan_wall = time.perf_counter() - wall
    spent = time.process_time() - cpu
    bill, prompts, candidates = Bill(seen=list(earlier.seen) if earlier else []), {}, []
    for chunk in plan.chunks:
        start = time.process_time()
        messages = plan.messages(chunk, snapshot.read)
        spent += time.process_time() - start
        prompts[chunk.index] = messages[1]["content"]
        text = answer(seen_sinks(messages[1]["content"], known))
        bill.charge(messages, text)
        candidates += [(chunk.index, f) for f in parse_review_output(text).findings if f.path in plan.sizes]
    start = time.process_time()
    home = {p: c.index for c in plan.chunks for p in c.paths}
    batches, kept = verification_batches(dedupe(candidates, snapshot.read, home), Precision(security=True))
    spent += time.process_time() - start
    reported = Counter[tuple[str, int, str]]((f.path, f.line, f.cwe or "") for f in kept)
    source = tree_source(snapshot, lambda path: callers_of(plan.graph, path), index, cache)
    for batch in batches:
        start = time.process_time()  # as verify_flow.check_with_flow sends it: the chunk's request, each flow's code
        flows = [plan_flow(f, source) for f in batch.findings]
        findings = [with_callee_steps(f, flow) for f, flow in zip(batch.findings, flows, strict=True)]
        asked = batch_messages(plan.messages(plan.chunks[batch.owner], snapshot.read), findings, snapshot.read,
                               [render_flow(flow.blocks, source.read) for flow in flows])
        spent += time.process_time() - start
        bill.charge(asked, verdicts(len(batch.findings)))
        reported.update((f.path, f.line, f.cwe or "") for f in batch.findings)
    return Run(name, len(plan.chunks), bill, spent, plan_wall, reported, prompts, home, parser.count), plan


def verified_before(tree: Snapshot, store: IndexStore) -> None:
    """What the last audit's verification left in the context index's store: the tree's identifiers per blob."""
    tree_source(tree, lambda _: [], store).locate("_", "")


def row(run: Run) -> str:
    b = run.bill
    per_million = run.cpu / (b.prompt / 1e6) if b.prompt else 0.0
    most = max(run.reported.values(), default=0)
    return (f"| {run.name} | {run.chunks} | {b.requests} | {b.prompt:,} | {b.cache_share:.1%} | ${b.usd:.2f} | "
            f"{run.plan_wall:.1f} s | {run.cpu:.1f} s | {per_million:.2f} | {len(run.reported)} distinct, "
            f"{run.twice} reported more than once (up to {most}×) |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write-readme", action="store_true")
    parser.add_argument("--skip-before", action="store_true", help="only the new planner (the old one is slow)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each audit (the best is kept)")
    args = parser.parse_args()
    repo = django_repo()
    new_files, old_files = tree_files(repo, "v5.2.2"), tree_files(repo, "v5.2.1")
    with tempfile.TemporaryDirectory(prefix="audit-plan-") as scratch:
        work = Path(scratch)
        snapshot = DirSnapshot(export(repo, "v5.2.2", work / "tree"))
        paths = auditable(snapshot.paths(), snapshot.read, DIRECTORY)
        known = sinks({p: new_files[p] for p in paths})
        runs = [] if args.skip_before else [before(snapshot, known)]
        fulls = [after(snapshot, known, cache=SqliteFacts(work / f"full-{n}"),  # empty caches: the first audit
                       index=SqliteIndex(work / f"index-full-{n}")) for n in range(max(1, args.repeat))]
        full, plan = min(fulls, key=lambda r: r[0].cpu)
        runs.append(full)
        old = MemorySnapshot(old_files)
        audited_before = set(auditable(old.paths(), old.read, DIRECTORY))
        previous = {p: b for p, b in old.blob_ids().items() if p in audited_before}
        current = {p: b for p, b in snapshot.blob_ids().items() if p in plan.sizes}
        selection = select_incremental(previous, current, plan.graph, sizes=plan.sizes)
        warm, cold = [], []
        old_tree = DirSnapshot(export(repo, "v5.2.1", work / "old-tree"))
        earlier = Bill()  # the audit of 5.2.1 ran before on the same affinity (repository, branch, scope)
        previous_plan = plan_audit(old, DIRECTORY)
        for chunk in previous_plan.chunks:
            earlier.remember(previous_plan.messages(chunk, old.read))
        for n in range(max(1, args.repeat)):
            facts, index = SqliteFacts(work / f"warm-{n}"), SqliteIndex(work / f"index-warm-{n}")
            plan_audit(old, DIRECTORY, facts_cache=facts)  # the audit of 5.2.1 that ran before,
            verified_before(old_tree, index)  # and its verification, on the tree as a worker reads it
            warm.append(after(DirSnapshot(snapshot.root), known, only=selection.audit, cache=facts,
                              name="incremental 5.2.1 → 5.2.2 (5.2.1's files cached)", earlier=earlier,
                              index=index)[0])
            cold.append(after(DirSnapshot(snapshot.root), known, only=selection.audit,
                              cache=SqliteFacts(work / f"cold-{n}"), name="incremental, cold (empty caches)",
                              earlier=earlier, index=SqliteIndex(work / f"index-cold-{n}"))[0])
        planted = findable(work)
        heldout = findable(work, "heldout.yaml")
    incremental = min(warm, key=lambda r: r.cpu)
    runs += [incremental, min(cold, key=lambda r: r.cpu)]
    texts = {p: new_files[p] for p in paths}
    recall = {r.name: caller_recall(texts, r.prompts, r.home) for r in runs[:-2]}
    callees = {r.name: callee_recall(texts, r.prompts, r.home) for r in runs[:-2]}
    text = report(runs, plan, selection.changed, selection.audit, incremental.bill.usd / full.bill.usd, recall,
                  callees, args.repeat, planted, heldout)
    print(text)
    if args.write_readme:
        write_section("audit", text)


def report(runs: list[Run], plan: AuditPlan, changed: tuple[str, ...], audited: tuple[str, ...], share: float,
           recall: dict[str, tuple[int, int]], callees: dict[str, tuple[int, int]], repeat: int,
           planted: dict[str, tuple[int, int, int]] | None,
           heldout: dict[str, tuple[int, int, int]] | None = None) -> str:
    lines = ["Command: `.venv/bin/python -m bench.audit_plan --write-readme`. Django 5.2.2's `django/` package "
             f"from PyPI ({len(plan.sizes)} files audited, about {sum(plan.sizes.values()) // 4:,} tokens of code), "
             "offline stand-in model (bench/audit_standin.py), cost at K2.6 prices ($0.95/M input, $0.16/M cached, "
             "$4.00/M output) with the cache share the stand-in measured. Files read from the release exported to "
             f"disk; each row of this planner is the best of {repeat} runs (CPU seconds; the machine is shared).", "",
             "| Audit | Chunks | Requests | Prompt tokens | Cached | Est. cost | Planning (wall) | Build CPU | "
             "CPU s per M prompt tokens | Findings reported |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    lines += [row(r) for r in runs]
    lines += ["", f"Incremental re-audit after the patch release 5.2.1 → 5.2.2: {len(changed)} changed file(s), "
              f"{len(audited)} audited with their callers and callees: **{share:.1%}** of the full audit's cost.", "",
              "Files parsed while planning (the rest from the facts cache, per blob id and language): "
              + "; ".join(f"{r.name}: {r.parsed:,} of {len(plan.sizes):,}" for r in runs if r.parsed is not None)
              + ".",
              "", "Real callers (Python's `ast`: calls of a function defined in exactly one other file) that arrive "
              "with the function's chunk (same chunk or its context):"]
    lines += [f"- {name}: {hit:,} of {total:,} ({hit / max(total, 1):.1%})" for name, (hit, total) in recall.items()]
    lines += ["", "Real callees (the same `ast` pairs, per function: its `def` line arrives with the calling file's "
              "chunk, same chunk or shown in its prompt):"]
    lines += [f"- {name}: {hit:,} of {total:,} ({hit / max(total, 1):.1%})" for name, (hit, total) in callees.items()]
    if planted is not None:
        lines += _findable("Planted flows findable (bench/planted/, judged by bench/planted/ideal.py: one request, a "
                           "chunk's or a flow's, holds the source line, the sink line and every function between; "
                           "each release's cases in its own tree):", planted)
    if heldout is not None:
        lines += _findable("Held-out planted flows findable (bench/planted/heldout.yaml: other releases, written "
                           "blind to the planner after its flow rules were tuned on the corpus above; the same judge; "
                           "case by case: `python -m bench.audit_planted --corpus heldout.yaml`):", heldout)
    return "\n".join(lines) + "\n"


def _findable(title: str, rows: dict[str, tuple[int, int, int]]) -> list[str]:
    """A corpus's lines: its title, then per planner and release how many cases one request shows whole."""
    return ["", title, *(f"- {name}: {found} of {total} ({twice} more request(s) showing one whole, for "
                         "deduplication to fold)" for name, (found, total, twice) in rows.items())]


if __name__ == "__main__":
    main()
