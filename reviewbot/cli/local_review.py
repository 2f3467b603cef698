"""Review local git changes with the model, or print the prompt plan (`reviewbot review --dry-run`); the exit
status is the Action's: 0 done, 1 a finding reached the blocking severity, 2 the review could not be done."""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reviewbot.cli.review_output import (
    EXPECTED_COMPLETION_TOKENS,
    PlanFacts,
    Revisions,
    as_json,
    nothing_json,
    plan_text,
    posted,
)
from reviewbot.errors import ConfigError, ModelUnreachable
from reviewbot.inference.pricing import cost
from reviewbot.repos.localgit import LocalChange, read_local_change
from reviewbot.repos.localinput import local_input
from reviewbot.repos.worktree import uncommitted, worktree_commit
from reviewbot.review.context.options import CONFIG_PATH
from reviewbot.review.diff.filters import Attributes, exclusion
from reviewbot.review.engine import ReviewInput, ReviewResult, prepare
from reviewbot.review.prompt.plan import Plan
from reviewbot.settings import Settings
from reviewbot.state.prompt_stores import FileStores, branch_layout_key

if TYPE_CHECKING:
    from reviewbot.review.config import RepoConfig

DONE, BLOCKED, FAILED = 0, 1, 2  # as `reviewbot action`


@dataclass(frozen=True)
class ReviewArgs:
    repo: Path
    base: str
    head: str = "HEAD"
    fmt: str | None = None  # markdown, text or json; None: markdown for a review, text for a dry run
    dry_run: bool = False
    worktree: bool = False
    fail_on: str | None = None  # a severity, `never`, or None: the base branch's blocking_severity


def review_command(settings: Settings, args: ReviewArgs) -> int:
    if not args.repo.is_dir():
        raise ConfigError(f"--repo {args.repo}: no such directory")
    if not args.dry_run:  # before anything is read or written: a review bound to fail costs nothing
        settings.require(settings.missing_for_model(), "reviewbot review")
    change = _change(settings, args)
    rev = Revisions(args.base, change.merge_base, args.head, change.head_sha, args.worktree)
    if nothing := _nothing_to_review(change):
        print(f"reviewbot: nothing to review: {nothing}; no prompt was planned and no model was asked",
              file=sys.stderr)
        if args.fmt == "json":  # a CI step reading the JSON gets the same keys, not an empty stdout
            print(nothing_json(rev, args.dry_run, nothing, settings.model, args.fail_on))
        return DONE
    stores = FileStores(settings.data_dir)
    key = branch_layout_key(change.identity, change.branch)
    inp = local_input(settings, change, stores, key)
    base_config = _base_config(change)
    blocking = (base_config.blocking_severity if base_config else None) if args.fail_on is None else (
        None if args.fail_on == "never" else args.fail_on)
    if args.dry_run:
        fmt = args.fmt or "text"
        facts = _facts(settings, inp, prepare(inp), change.branch)
        print(as_json(rev, facts, None, blocking, False) if fmt == "json" else plan_text(rev, facts, fmt == "markdown"))
        return DONE
    import asyncio  # a dry run runs nothing asynchronously

    from reviewbot.review.findings.schema import SEVERITY_RANK

    try:
        result = asyncio.run(_review(settings, inp))
    except ModelUnreachable as exc:
        raise ConfigError(f"cannot reach the model at {settings.chat_base_url}/chat/completions ({exc}): is the "
                          "server running? Check REVIEWBOT_MODEL_BASE_URL (or CLOUDFLARE_ACCOUNT_ID), proxies and "
                          "the network; `reviewbot doctor` tries it") from None
    stores.save_layout(key, result.plan.layout)
    if result.report.usage.requests == 1:
        stores.observe(settings.model, result.prompt.chars, result.report.usage.prompt_tokens)
    blocked = blocking is not None and any(SEVERITY_RANK[f.severity] <= SEVERITY_RANK[blocking]
                                           for f in posted(result))
    if args.fmt == "json":  # the plan the review was built from, not a second one
        print(as_json(rev, _facts(settings, inp, result.plan, change.branch), result, blocking, blocked))
    else:
        from reviewbot.cli.review_output import review_markdown

        print(review_markdown(result))
    if blocked:
        print(f"reviewbot: a finding reached the blocking severity ({blocking}); exit status 1", file=sys.stderr)
    return BLOCKED if blocked else DONE


def _facts(settings: Settings, inp: ReviewInput, plan: Plan, branch: str) -> PlanFacts:
    price = settings.prices.get(settings.model)  # REVIEWBOT_PRICES over the catalogue's
    return PlanFacts(plan=plan, model=settings.model, affinity=inp.affinity, branch=branch,
                     budget_tokens=inp.prompt.options.budget_tokens, chars_per_token=inp.prompt.chars_per_token,
                     previous_review=inp.previous_layout is not None,
                     estimate_usd=cost(price, plan.prompt.tokens, plan.reuse_tokens, EXPECTED_COMPLETION_TOKENS)
                     if price else None)


def _change(settings: Settings, args: ReviewArgs) -> LocalChange:
    """The committed range, or with --worktree the working tree on top of HEAD; says what a review leaves out."""
    if not args.worktree:
        change = read_local_change(args.repo, args.base, args.head)
        if args.head == "HEAD" and (left := uncommitted(change.root)):
            print(f"reviewbot: {left.describe()} not committed: not reviewed (only commits are); --worktree "
                  "reviews the working tree against the base", file=sys.stderr)
        return change
    if args.head != "HEAD":
        raise ConfigError("--worktree reviews the working tree on top of HEAD: leave out --head")
    plain = read_local_change(args.repo, args.base, "HEAD")
    commit = worktree_commit(plain.root, plain.head_sha, settings.data_dir)
    change = read_local_change(args.repo, args.base, commit)
    return dataclasses.replace(change, branch=plain.branch, head_sha=plain.head_sha)


def _nothing_to_review(change: LocalChange) -> str | None:
    """Why there is nothing to send the model: no changed file, or every one left out by path, attributes or the
    base branch's `ignore` (decided without reading any file's content, so it costs nothing)."""
    if not change.diff.files:
        return "the range has no changes"
    snapshot = change.snapshot
    if snapshot is None:
        return None
    from pathspec import GitIgnoreSpec

    base_config = _base_config(change)
    ignore = base_config.ignore if base_config else []
    attributes = Attributes({p: snapshot.read(p) or "" for p in snapshot.paths()
                             if p == ".gitattributes" or p.endswith("/.gitattributes")})
    spec = GitIgnoreSpec.from_lines(list(ignore)) if ignore else None
    reasons = [exclusion(f, attributes, spec) for f in change.diff.files]
    if all(reasons):
        return f"all {len(reasons)} changed file(s) are left out (" + "; ".join(
            f"{f.path}: {r}" for f, r in zip(change.diff.files, reasons, strict=True)
            if r)[:300] + ")"
    return None


def _base_config(change: LocalChange) -> RepoConfig | None:
    """The base commit's `.github/reviewbot.yml`, or None without one: its schema (pydantic, YAML) is loaded only
    for a repository that has the file, as `localinput.configured` does."""
    snapshot = change.snapshot
    text = snapshot.read(CONFIG_PATH) if snapshot else change.base_files.get(CONFIG_PATH)
    if text is None or not text.strip():
        return None
    from reviewbot.review.config import parse_config

    return parse_config(text).config


async def _review(settings: Settings, inp: ReviewInput) -> ReviewResult:
    # Imported here: a dry run needs none of the model client, and start-up is what a user waits for.
    import httpx

    from reviewbot.inference.factory import model_client
    from reviewbot.inference.memo import MemoryMemo
    from reviewbot.inference.polling import answer_polling
    from reviewbot.inference.structured import StructuredReviewer
    from reviewbot.observe.progress import ReviewStatus

    timeout = httpx.Timeout(settings.model_timeout, connect=10.0)
    memo = MemoryMemo()  # answers that came through the provider's queue, replayed on the next pass
    async with httpx.AsyncClient(timeout=timeout) as http:
        client = model_client(settings, http)
        reviewer = StructuredReviewer(client, memo=memo, max_turns=settings.max_tool_turns,
                                      token_budget=settings.review_token_budget)
        with ReviewStatus() as status:  # progress on stderr when it is a terminal
            client.on_request = status.request_done
            answer = answer_polling(lambda exc: print(f"reviewbot: {exc}; polling again in {exc.retry_after:.0f}s",
                                                      file=sys.stderr))
            return await answer(inp, reviewer)
