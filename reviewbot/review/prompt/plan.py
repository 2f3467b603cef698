"""diff → filters → symbols → context → layout: the prompt plan of one review, with its coverage report.

Prompt order is by volatility, for the provider's prefix cache: system, guidance, base-version context, the diff
files a push left unchanged, context a re-review added, the diff files the newest push changed, then the pull
request's own text (title, description, commits) and the notes, which may change with every push."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pathspec import GitIgnoreSpec

from reviewbot.review.context.analysis import analyze
from reviewbot.review.context.index import RepoIndex
from reviewbot.review.context.options import guidance
from reviewbot.review.context.selection import Selector
from reviewbot.review.context.snapshot import MemorySnapshot
from reviewbot.review.diff.filters import Attributes, path_reason, screen
from reviewbot.review.linked.issuetext import issues_section
from reviewbot.review.prompt.blocks import Chosen, context_blocks
from reviewbot.review.prompt.coverage import Coverage
from reviewbot.review.prompt.diffsection import DiffEntry, plan_diff
from reviewbot.review.prompt.layout import Layout, diff_order, digest, shared_prefix_tokens
from reviewbot.review.prompt.sections import Prompt, PromptInput, Section, estimate_tokens, system_prompt
from reviewbot.review.prompt.tooldefs import TOOL_DEFINITIONS_JSON  # data only: what is sent beside the system message

DIFF_SHARE = 0.65  # of what the fixed sections leave: the diff is what is under review, context comes second
MAX_ANALYZED = 150  # changed files whose symbols drive context selection (the rest are still reviewed)
MAX_DESCRIPTION_CHARS = 8_000
MAX_LISTED_OMISSIONS = 100
CONTEXT_HEADER = "## Files as they were before this pull request (base commit)"
DIFF_HEADER = "## The diff (old new kind text)"
LATE_HEADER = "## More files as they were before this pull request (base commit)"
DIFF_MORE_HEADER = "## The diff, continued (old new kind text)"


@dataclass(frozen=True)
class Plan:
    prompt: Prompt
    coverage: Coverage
    layout: Layout
    reuse_tokens: int  # expected prefix-cache hit against the previous review of this PR or branch


def build_plan(inp: PromptInput, previous: Layout | None = None) -> Plan:
    snapshot = inp.snapshot or MemorySnapshot(inp.base_files)
    options, cpt = inp.options, inp.chars_per_token
    budget = inp.budget_tokens or options.budget_tokens
    attributes = Attributes({p: snapshot.read(p) or "" for p in snapshot.paths()
                             if p == ".gitattributes" or p.endswith("/.gitattributes")})
    spec = GitIgnoreSpec.from_lines(list(options.ignore)) if options.ignore else None
    index = RepoIndex(snapshot, lambda p: path_reason(p, attributes, spec) is not None, inp.index,
                      near=[f.old_path or f.path for f in inp.diff.files])
    screened = screen(inp.diff.files, lambda f: index.text(f.old_path) if f.old_path else None, attributes,
                      options.ignore)

    repo_guidance = guidance(snapshot, options, [f.path for f in inp.diff.files])
    guide = "\n\n".join(t for t in (repo_guidance.text, inp.guidance) if t)
    issues, issues_shown = issues_section(inp.linked, inp.repo)
    fixed = [Section("system", system_prompt(options.tools), ("tools",) if options.tools else (), cpt,
                     estimate_tokens(TOOL_DEFINITIONS_JSON, cpt) if options.tools else 0),
             Section("guidance", f"## Repository guidance (from the base commit)\n\n{guide}" if guide else "",
                     repo_guidance.sources, cpt),
             Section("pull request", "## Pull request (untrusted text)\n\nTitle: "
                     f"{inp.title}\n\nDescription:\n{inp.description[:MAX_DESCRIPTION_CHARS] or '(none)'}"
                     + (f"\n\n{issues}" if issues else ""), issues_shown, cpt),
             Section("notes", f"## Notes for this review\n\n{inp.volatile_note}" if inp.volatile_note else "", (),
                     cpt)]
    room = budget - sum(s.tokens for s in fixed) - 50
    entries, over_budget = plan_diff(list(screened.kept), int(room * DIFF_SHARE), cpt)
    shown = {e.path for e in entries}
    changes = [analyze(f, index.text(f.old_path) if f.old_path else None,
                       index.parsed(f.old_path, force=True) if f.old_path else None)
               for f in [f for f in screened.kept if f.path in shown][:MAX_ANALYZED]]
    selector = Selector(index, changes)
    picks = selector.select()
    skipped = ([(x.path, x.reason) for x in screened.excluded] + over_budget
               + [(p.path, p.reason) for p in inp.diff.problems])
    omitted = _omissions(skipped)
    left = room - sum(e.tokens for e in entries) - estimate_tokens(omitted + CONTEXT_HEADER + DIFF_HEADER, cpt)
    spans = {f.old_path: tuple((h.old_start, h.old_start + max(h.old_len, 1) - 1) for h in f.hunks)
             for f in screened.kept if f.old_path and f.path in {e.path for e in entries if e.partial is None}}
    chosen = context_blocks(picks, index, previous, left, cpt, index.is_skipped, spans)
    plan = _finish(inp, fixed, chosen, entries, skipped, omitted, previous, cpt, len(changes),
                   _left_out(chosen, selector.left_out))
    if index.unindexed:  # a first review of a large repository: callers and definitions further away may be missed
        plan = replace(plan, coverage=replace(plan.coverage, notes=(*plan.coverage.notes, (
            f"the repository's index does not cover {index.unindexed} files yet (this review indexed those nearest "
            "to the change); callers and definitions among them were not searched, later reviews index them"))))
    rules = tuple((u.path, u.status, u.why, u.files) for u in repo_guidance.rules.uses)
    linked = tuple((i.ref.label(inp.repo), "" if i.ref.label(inp.repo) in issues_shown else i.why_not or "not shown")
                   for i in inp.linked)
    return replace(plan, coverage=replace(plan.coverage, rules=rules, issues=linked))


def _left_out(chosen: Chosen, capped: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """Related files the prompt does not show, with why they were related: weakly related, past the budget, or
    past the cap on callers per name (which the selection never turned into candidates)."""
    shown = {b.spec.path for b in (*chosen.early, *chosen.late)}
    out = dict(chosen.left_out)
    out.update({p: r for p, r in capped.items() if p not in shown and p not in out})
    return tuple(sorted(out.items()))


def _omissions(skipped: list[tuple[str, str]]) -> str:
    """What the model is told it does not see (bounded: a 5,000-file PR does not list every file)."""
    if not skipped:
        return ""
    listed = "\n".join(f"- {p}: {r}" for p, r in skipped[:MAX_LISTED_OMISSIONS])
    more = f"\n- … and {len(skipped) - MAX_LISTED_OMISSIONS} more" if len(skipped) > MAX_LISTED_OMISSIONS else ""
    return f"Changed files not shown:\n{listed}{more}"


def _finish(inp: PromptInput, fixed: list[Section], chosen: Chosen, entries: list[DiffEntry],
            skipped: list[tuple[str, str]], omitted: str, previous: Layout | None, cpt: float,
            analyzed: int, left_out: tuple[tuple[str, str], ...] = ()) -> Plan:
    system, guide, pr, notes = fixed
    early, late = chosen.early, chosen.late
    context_text = f"{CONTEXT_HEADER}\n\n" + "\n\n".join(b.text for b in early) if early else ""
    context = Section("context files", context_text, tuple(b.spec.path for b in early), cpt)
    texts = {e.path: e.text for e in entries}
    before, after = diff_order(previous, texts)
    diff = Section("diff", "\n\n".join([DIFF_HEADER, *(texts[p] for p in before)]), tuple(before), cpt)
    late_text = f"{LATE_HEADER}\n\n" + "\n\n".join(b.text for b in late) if late else ""
    more = Section("more context files", late_text, tuple(b.spec.path for b in late), cpt)
    rest = [DIFF_MORE_HEADER] if late and after else []
    rest_text = "\n\n".join([*rest, *(texts[p] for p in after), *([omitted] if omitted else [])])
    diff_more = Section("diff, changed by the newest push", rest_text, tuple(after), cpt)
    sections = (system, guide, context, diff, more, diff_more, pr, notes)
    ids = ([("system", system.text), ("guidance", guide.text), ("ctx-header", CONTEXT_HEADER if early else "")]
           + [(b.spec.id, b.text) for b in early] + [("diff-header", DIFF_HEADER)]
           + [(f"diff:{p}", texts[p]) for p in before] + [("late-header", LATE_HEADER if late else "")]
           + [(b.spec.id, b.text) for b in late] + [("diff-more-header", rest[0] if rest else "")]
           + [(f"diff:{p}", texts[p]) for p in after] + [("diff-omitted", omitted), ("pr", pr.text),
                                                         ("notes", notes.text)])
    digests = [(i, digest(t), estimate_tokens(t, cpt) + (system.extra_tokens if i == "system" else 0))
               for i, t in ids]
    blocks = early + late
    layout = Layout(context=tuple(b.spec for b in blocks), diff_order=(*before, *after), blocks=tuple(digests),
                    late_from=len(early), diff_split=len(before))
    notes_list = list(inp.notes) + ([f"context was gathered for the first {analyzed} changed files only"]
                                    if analyzed >= MAX_ANALYZED else [])
    coverage = Coverage(
        reviewed=tuple(e.path for e in sorted(entries, key=lambda e: e.path) if e.partial is None),
        partial=tuple((e.path, e.partial) for e in sorted(entries, key=lambda e: e.path) if e.partial),
        skipped=tuple(skipped),
        context=tuple((b.spec.path, b.spec.reason + b.note, b.tokens) for b in blocks),
        sections=tuple((s.name, s.tokens) for s in sections),
        notes=tuple(notes_list), left_out=left_out)
    prompt = Prompt(sections=sections, skipped=tuple(p for p, _ in skipped))
    return Plan(prompt=prompt, coverage=coverage, layout=layout,
                reuse_tokens=shared_prefix_tokens(previous, digests))


def build_prompt(inp: PromptInput) -> Prompt:
    """Sections in cache order: system, guidance, base context, PR text, diff, volatile notes."""
    return build_plan(inp).prompt
