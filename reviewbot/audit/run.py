"""`reviewbot audit`: a security review of a whole repository or directory, in chunks, through the provider's
asynchronous queue, resumable from a state file under the data dir, with a report."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx

from reviewbot.audit.answer_schema import AUDIT_FORMATS
from reviewbot.audit.batches import Batch, verification_batches
from reviewbot.audit.chunkprompt import MAX_FILE_CHARS
from reviewbot.audit.chunks import AUDIT_CHUNK_TOKENS, Chunk, Listed
from reviewbot.audit.contextblock import Block
from reviewbot.audit.dedup import dedupe
from reviewbot.audit.evidence import EvidenceCheck, callers_of, with_callers
from reviewbot.audit.factstore import FOLDER, SqliteFacts
from reviewbot.audit.flowcontext import tree_source
from reviewbot.audit.formats import format_for, render
from reviewbot.audit.planner import AuditPlan, plan_audit
from reviewbot.audit.service_record import CodeAsk
from reviewbot.audit.verify_flow import check_with_flow
from reviewbot.audit.verify_schema import AUDIT_VERIFY_FORMATS
from reviewbot.errors import ConfigError, ModelPermanent, ModelQueued, PermanentError, RetryableError
from reviewbot.inference.factory import model_client
from reviewbot.inference.filememo import FileMemo
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.inference.tools import RepoTools
from reviewbot.inference.verify_request import StructuredVerifier
from reviewbot.model import Usage
from reviewbot.repos.dirsnapshot import DirSnapshot
from reviewbot.repos.index_store import SqliteIndex
from reviewbot.repos.localgit import git
from reviewbot.review.config import CONFIG_PATH, parse_config, precision, with_security
from reviewbot.review.context.snapshot import Snapshot
from reviewbot.review.diff.filters import VENDORED_DIRS
from reviewbot.review.engine import affinity_id
from reviewbot.review.findings.precision import Precision
from reviewbot.review.findings.schema import Finding
from reviewbot.review.findings.verification import Checks, VerifyAnswer
from reviewbot.settings import Settings
from reviewbot.state.private_files import write_private

STATE_VERSION = 3  # chunks cut by the call graph, merged candidates, flow requests as parts
T = TypeVar("T")


def audit_command(settings: Settings, repo: Path, directory: str, report: Path | None, *, restart: bool = False,
                  parallel: int = 4, chunk_tokens: int = AUDIT_CHUNK_TOKENS, fmt: str | None = None) -> int:
    settings.require(settings.missing_for_model(), "reviewbot audit")
    root = repo.resolve()
    if not root.is_dir():
        raise ConfigError(f"--repo {repo} is not a directory")
    snapshot = Listed(DirSnapshot(root), listed_files(root))
    work = settings.data_dir / "audits" / hashlib.sha256(f"{root}\x1f{directory}".encode()).hexdigest()[:16]
    plan = plan_audit(snapshot, directory, chunk_tokens=chunk_tokens,
                      facts_cache=SqliteFacts(settings.data_dir / FOLDER))  # parses only unseen content
    state = _state(work / "state.json", root, directory, plan, restart, settings.model)
    plan = dataclasses.replace(plan, chunks=tuple(Chunk(c["index"], tuple(c["paths"]), c["tokens"], tuple(
        Block.from_json(b) for b in c.get("flow", []))) for c in state["chunks"]))  # as planned when it started
    todo = [c for c in plan.chunks if str(c.index) not in state["done"]]
    if not todo and state.get("merged"):
        print(f"reviewbot: this audit is already complete; --restart audits again ({work})", file=sys.stderr)
    asyncio.run(_run(settings, root, snapshot, plan, state, work, todo, max(1, parallel)))
    text = render(state, format_for(report, fmt), snapshot.read, **_revision(root))
    if report is None:
        print(text)
    else:
        report.write_text(text)
        print(f"reviewbot: report written to {report}", file=sys.stderr)
    if state["failed"]:
        print(f"reviewbot: {len(state['failed'])} chunk(s) failed; run the same command again to resume",
              file=sys.stderr)
        return 1
    (work / "memo.json").unlink(missing_ok=True)  # every answer is in the state now
    return 0


def _revision(root: Path) -> dict[str, str]:
    """The branch and commit a SARIF report names, when the directory is a git work tree."""
    try:
        return {"branch": git(root, "rev-parse", "--abbrev-ref", "HEAD").decode().strip(),
                "commit_sha": git(root, "rev-parse", "HEAD").decode().strip()}
    except ConfigError:
        return {}


def listed_files(root: Path) -> list[str]:
    """git's tracked files when `root` is in a work tree (what .gitignore leaves), else a filtered walk."""
    try:
        raw = git(root, "ls-files", "-z")
    except ConfigError:
        found = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in VENDORED_DIRS]
            rel = Path(folder).relative_to(root).as_posix()
            found += [name if rel == "." else f"{rel}/{name}" for name in files]
        return found
    return [p for p in raw.decode("utf-8", errors="replace").split("\0") if p and (root / p).is_file()]


def _state(path: Path, root: Path, directory: str, plan: AuditPlan, restart: bool, model: str) -> dict[str, Any]:
    if path.is_file() and not restart:
        state: dict[str, Any] = json.loads(path.read_text())
        if state.get("version") == STATE_VERSION:
            state["failed"] = {}
            return state
    if not plan.chunks:
        raise ConfigError(f"no source files to audit under {root / directory}")
    chunks = [{"index": c.index, "paths": list(c.paths), "tokens": c.tokens, "flow": [b.as_json() for b in c.flow]}
              for c in plan.chunks]
    state = {"version": STATE_VERSION, "root": str(root), "directory": directory, "model": model, "chunks": chunks,
             "created": datetime.now(UTC).isoformat(timespec="seconds"), "done": {}, "failed": {}, "verified": {},
             "partial": [[p, f"only the first {MAX_FILE_CHARS:,} characters were audited"] for p in plan.files
                         if plan.sizes[p] > MAX_FILE_CHARS]}
    _save(path, state)
    (path.parent / "memo.json").unlink(missing_ok=True)
    return state


def _save(path: Path, state: dict[str, Any]) -> None:
    write_private(path, json.dumps(state, indent=1))  # findings about private code


async def _run(settings: Settings, root: Path, snapshot: Snapshot, plan: AuditPlan, state: dict[str, Any],
               work: Path, todo: list[Chunk], parallel: int) -> None:
    config = with_security(parse_config(snapshot.read(CONFIG_PATH)).config)
    memo = FileMemo(work / "memo.json")
    limit = asyncio.Semaphore(parallel)
    affinity = affinity_id("audit", state["root"], state["directory"])  # one for every request of the audit
    async with httpx.AsyncClient(timeout=httpx.Timeout(settings.model_timeout, connect=10.0)) as http:
        client = dataclasses.replace(model_client(settings, http), prefer_async=True)
        if client.run_url is None:
            print("reviewbot: this provider has no asynchronous queue; requests are sent directly", file=sys.stderr)
        reviewer = StructuredReviewer(client, memo=memo, tools=RepoTools(root), max_turns=settings.max_tool_turns,
                                      token_budget=settings.review_token_budget, formats=AUDIT_FORMATS)
        files = frozenset(snapshot.paths())  # evidence must name one of them

        async def one(chunk: Chunk) -> None:
            async with limit:
                messages = plan.messages(chunk, snapshot.read)
                try:
                    answer = await _until_answered(lambda: reviewer.fresh().review(messages, affinity),
                                                   f"part {chunk.index + 1} of {len(plan.chunks)}")
                except (PermanentError, RetryableError) as exc:
                    state["failed"][str(chunk.index)] = str(exc)
                    print(f"reviewbot: part {chunk.index + 1} failed: {exc}", file=sys.stderr)
                    return
                audited = set(chunk.paths or plan.files)  # a flow's request reports on the audit's files
                check = EvidenceCheck(snapshot.read, files)
                state["done"][str(chunk.index)] = {
                    "candidates": [with_callers(check(f), plan.graph, plan.definitions, snapshot.read).model_dump()
                                   for f in answer.output.findings if f.path in plan.sizes],
                    "evidence_dropped": check.dropped,
                    "outside": len([f for f in answer.output.findings if f.path not in audited]),
                    "usage": dataclasses.asdict(answer.usage)}
                _save(work / "state.json", state)

        await asyncio.gather(*(one(c) for c in todo))
        await _verify(plan, snapshot, state, work, reviewer, affinity, precision(config), limit, settings.data_dir)


async def _verify(plan: AuditPlan, snapshot: Snapshot, state: dict[str, Any], work: Path,
                  reviewer: StructuredReviewer, affinity: str, policy: Precision, limit: asyncio.Semaphore,
                  data_dir: Path) -> None:
    """Every chunk's candidates merged by code fingerprint, then one check per distinct finding, in the cached
    conversation of the chunk that audits its file; a batch already checked is read back from the state."""
    candidates = [(int(i), Finding.model_validate(f)) for i, done in state["done"].items() for f in done["candidates"]]
    home = {p: c.index for c in plan.chunks for p in c.paths}
    distinct = dedupe(candidates, snapshot.read, home)
    batches, kept = verification_batches(distinct, policy)
    state["merged"] = {"candidates": len(candidates), "distinct": len(distinct),
                       "unchecked_kept": [f.model_dump() for f in kept]}

    # The tree's identifiers and definitions per blob (the context index's store, the plan's facts cache).
    source = tree_source(snapshot, lambda path: callers_of(plan.graph, path), SqliteIndex(data_dir / "index"),
                         SqliteFacts(data_dir / FOLDER))

    async def check(batch: Batch) -> None:
        if batch.key in state["verified"]:
            return

        async def ask(messages: list[dict[str, str]], ids: list[int]) -> VerifyAnswer:
            return await _until_answered(lambda: StructuredVerifier(reviewer.fresh(), AUDIT_VERIFY_FORMATS).verify(
                messages, ids, affinity), f"verification in part {batch.owner + 1}")

        async with limit:
            try:
                checked = await check_with_flow(ask, plan.messages(plan.chunks[batch.owner], snapshot.read),
                                                batch.findings, source)
            except ModelPermanent as exc:  # a check that cannot run keeps its candidates, labelled
                unverified = [f.model_copy(update={"unverified": True}) for f in batch.findings]
                state["verified"][batch.key] = _checked(unverified, Checks(unchecked=tuple(
                    f.title for f in batch.findings)), exc.usage)
            except (PermanentError, RetryableError) as exc:
                state["failed"][f"verification {batch.key}"] = str(exc)
                return
            else:
                state["verified"][batch.key] = _checked(checked.kept, checked.checks, checked.usage, checked.asks)
            _save(work / "state.json", state)

    await asyncio.gather(*(check(b) for b in batches))
    wanted = {b.key for b in batches}
    state["verified"] = {k: v for k, v in state["verified"].items() if k in wanted}
    _save(work / "state.json", state)


async def _until_answered(ask: Callable[[], Awaitable[T]], what: str) -> T:
    """Poll in-process: each pass replays what the memo already holds and asks the queue about the rest."""
    while True:
        try:
            return await ask()
        except ModelQueued as exc:
            print(f"reviewbot: {what} waits in the provider's queue; polling again in {exc.retry_after or 10:.0f}s",
                  file=sys.stderr)
            await asyncio.sleep(exc.retry_after or 10.0)


def _checked(findings: list[Finding], checks: Checks, usage: Usage,
             asks: tuple[CodeAsk, ...] = ()) -> dict[str, Any]:
    """A verified batch as the state keeps it; `code`: the candidates whose verifier asked for more code."""
    return {"findings": [f.model_dump() for f in findings], "checked": checks.checked,
            "dropped": [list(d) for d in checks.dropped], "unchecked": list(checks.unchecked),
            "code": [a.as_json() for a in asks], "usage": dataclasses.asdict(usage)}
