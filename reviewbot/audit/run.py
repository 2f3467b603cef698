"""`reviewbot audit`: a security review of a whole repository or directory, in chunks, through the provider's
asynchronous queue, resumable from a state file under the data dir, with a report."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from reviewbot.audit.chunks import CHUNK_TOKENS, Chunk, Listed, Without, added_diff, auditable, plan_chunks
from reviewbot.audit.formats import format_for, render
from reviewbot.errors import ConfigError, ModelQueued, PermanentError, RetryableError
from reviewbot.files import write_private
from reviewbot.inference.factory import model_client
from reviewbot.inference.filememo import FileMemo
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.inference.tools import RepoTools
from reviewbot.inference.verify_request import StructuredVerifier
from reviewbot.repos.dirsnapshot import DirSnapshot
from reviewbot.repos.localgit import git
from reviewbot.review.config import CONFIG_PATH, RepoConfig, context_options, parse_config, precision, with_security
from reviewbot.review.context.snapshot import MAX_TEXT_BYTES, Snapshot
from reviewbot.review.diff.filters import VENDORED_DIRS
from reviewbot.review.diff.parse import parse_diff
from reviewbot.review.engine import ReviewInput, ReviewResult, affinity_id, run_review
from reviewbot.review.prompt.sections import PromptInput
from reviewbot.settings import Settings

DESCRIPTION = ("Not a pull request: a security audit of existing code. Every file of this part is shown as added, "
               "so that all of it is reviewed; judge the code as it is.")


def audit_command(settings: Settings, repo: Path, directory: str, report: Path | None, *, restart: bool = False,
                  parallel: int = 4, chunk_tokens: int = CHUNK_TOKENS, fmt: str | None = None) -> int:
    settings.require(settings.missing_for_model(), "reviewbot audit")
    root = repo.resolve()
    if not root.is_dir():
        raise ConfigError(f"--repo {repo} is not a directory")
    snapshot = Listed(DirSnapshot(root), _listed(root))
    work = settings.data_dir / "audits" / hashlib.sha256(f"{root}\x1f{directory}".encode()).hexdigest()[:16]
    state = _state(work / "state.json", root, directory, snapshot, chunk_tokens, restart, settings.model)
    todo = [Chunk(c["index"], tuple(c["paths"]), c["tokens"]) for c in state["chunks"]
            if str(c["index"]) not in state["done"]]
    if not todo:
        print(f"reviewbot: this audit is already complete; --restart audits again ({work})", file=sys.stderr)
    asyncio.run(_run(settings, root, snapshot, state, work, todo, max(1, parallel)))
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


def _listed(root: Path) -> list[str]:
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


def _state(path: Path, root: Path, directory: str, snapshot: Snapshot, chunk_tokens: int, restart: bool,
           model: str) -> dict[str, Any]:
    if path.is_file() and not restart:
        state: dict[str, Any] = json.loads(path.read_text())
        state["failed"] = {}
        return state
    paths = auditable(snapshot.paths(), snapshot.read, directory)
    sizes = {p: s for p in paths if 0 < (s := (Path(root) / p).stat().st_size) <= MAX_TEXT_BYTES}
    if not sizes:
        raise ConfigError(f"no source files to audit under {root / directory}")
    chunks = [{"index": c.index, "paths": list(c.paths), "tokens": c.tokens} for c in plan_chunks(sizes, chunk_tokens)]
    state = {"version": 1, "root": str(root), "directory": directory, "model": model, "chunks": chunks,
             "created": datetime.now(UTC).isoformat(timespec="seconds"), "done": {}, "failed": {}}
    _save(path, state)
    (path.parent / "memo.json").unlink(missing_ok=True)
    return state


def _save(path: Path, state: dict[str, Any]) -> None:
    write_private(path, json.dumps(state, indent=1))  # findings about private code


async def _run(settings: Settings, root: Path, snapshot: Snapshot, state: dict[str, Any], work: Path,
               todo: list[Chunk], parallel: int) -> None:
    config = with_security(parse_config(snapshot.read(CONFIG_PATH)).config)
    memo = FileMemo(work / "memo.json")
    limit = asyncio.Semaphore(parallel)
    async with httpx.AsyncClient(timeout=httpx.Timeout(settings.model_timeout, connect=10.0)) as http:
        client = dataclasses.replace(model_client(settings, http), prefer_async=True)
        if client.run_url is None:
            print("reviewbot: this provider has no asynchronous queue; requests are sent directly", file=sys.stderr)
        reviewer = StructuredReviewer(client, memo=memo, tools=RepoTools(root), max_turns=settings.max_tool_turns,
                                      token_budget=settings.review_token_budget)

        async def one(chunk: Chunk) -> None:
            async with limit:
                inp = _input(settings, config, snapshot, chunk, len(state["chunks"]), state)
                try:
                    result = await _until_answered(inp, reviewer, chunk, len(state["chunks"]))
                except (PermanentError, RetryableError) as exc:
                    state["failed"][str(chunk.index)] = str(exc)
                    print(f"reviewbot: part {chunk.index + 1} failed: {exc}", file=sys.stderr)
                    return
                state["done"][str(chunk.index)] = _record(result)
                _save(work / "state.json", state)

        await asyncio.gather(*(one(c) for c in todo))


def _input(settings: Settings, config: RepoConfig, snapshot: Snapshot, chunk: Chunk, total: int,
           state: dict[str, Any]) -> ReviewInput:
    files = {p: text for p in chunk.paths if (text := snapshot.read(p)) is not None}
    options = context_options(config, settings.prompt_budget, list(chunk.paths), tools=True)
    where = state["directory"] or "the repository"
    prompt = PromptInput(title=f"Security audit of {where}, part {chunk.index + 1} of {total}",
                         description=DESCRIPTION, diff=parse_diff(added_diff(files)), base_files={},
                         snapshot=Without(snapshot, chunk.paths), options=options)
    return ReviewInput(prompt=prompt, affinity=affinity_id("audit", state["root"], state["directory"]),
                       precision=precision(config))


async def _until_answered(inp: ReviewInput, reviewer: StructuredReviewer, chunk: Chunk, total: int) -> ReviewResult:
    """Poll in-process: each pass replays what the memo already holds and asks the queue about the rest."""
    while True:
        attempt = reviewer.fresh()  # each part is one review, with its own token budget
        try:
            return await run_review(inp, attempt, StructuredVerifier(attempt))
        except ModelQueued as exc:
            print(f"reviewbot: part {chunk.index + 1} of {total} waits in the provider's queue; polling again in "
                  f"{exc.retry_after or 10:.0f}s", file=sys.stderr)
            await asyncio.sleep(exc.retry_after or 10.0)


def _record(result: ReviewResult) -> dict[str, Any]:
    report, checks = result.report, result.report.checks
    findings = [a.finding for a in report.placement.inline] + list(report.placement.outside)
    coverage = report.coverage
    return {"findings": [f.model_dump() for f in findings],
            "checked": checks.checked if checks else 0, "dropped": [list(d) for d in checks.dropped] if checks else [],
            "unchecked": list(checks.unchecked) if checks else [], "usage": dataclasses.asdict(report.usage),
            "partial": [list(p) for p in coverage.partial] + [list(s) for s in coverage.skipped] if coverage else []}
