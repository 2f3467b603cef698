"""`reviewbot audit --dry-run`: a local audit's plan without a model (files, chunks, tokens, estimated cost), as
`reviewbot review --dry-run` shows a review's."""

from __future__ import annotations

import json
from pathlib import Path

from reviewbot.audit.chunks import Listed
from reviewbot.audit.factstore import FOLDER, SqliteFacts
from reviewbot.audit.planner import AuditPlan, Estimate, plan_audit
from reviewbot.audit.run import listed_files
from reviewbot.errors import ConfigError
from reviewbot.repos.dirsnapshot import DirSnapshot
from reviewbot.settings import Settings

MAX_LISTED = 40  # chunks in the text form; the JSON form has every one


def audit_plan_command(settings: Settings, repo: Path, directory: str, chunk_tokens: int, fmt: str | None) -> int:
    root = repo.resolve()
    snapshot = Listed(DirSnapshot(root), listed_files(root))
    plan = plan_audit(snapshot, directory, chunk_tokens=chunk_tokens,
                      facts_cache=SqliteFacts(settings.data_dir / FOLDER))  # the real audit then parses nothing
    if not plan.chunks:
        raise ConfigError(f"no source files to audit under {root / directory}")
    price = settings.prices.get(settings.model)
    estimate = plan.estimate(price) if price is not None else None
    print(_json(settings.model, root, directory, plan, estimate) if fmt == "json"
          else _text(settings.model, root, directory, plan, estimate))
    return 0


def _json(model: str, root: Path, directory: str, plan: AuditPlan, estimate: Estimate | None) -> str:
    return json.dumps({
        "dry_run": True, "root": str(root), "directory": directory, "model": model,
        "files": list(plan.files), "prefix_tokens": plan.prefix_tokens,
        "chunks": [{"index": c.index, "tokens": c.tokens, "paths": list(c.paths)} for c in plan.chunks],
        "estimate": None if estimate is None else {
            "prompt_tokens": estimate.prompt_tokens, "cached_tokens": estimate.cached_tokens,
            "completion_tokens": estimate.completion_tokens, "cost_usd": estimate.cost_usd},
    }, indent=2)


def _text(model: str, root: Path, directory: str, plan: AuditPlan, estimate: Estimate | None) -> str:
    where = f"{root}/{directory.strip('/')}" if directory else str(root)
    code = sum(c.tokens for c in plan.chunks)
    lines = [f"Audit plan for {where} with {model}", "",
             f"{len(plan.files):,} file(s), {code:,} tokens of code in {len(plan.chunks)} chunk(s); a shared "
             f"prefix of {plan.prefix_tokens:,} tokens (the repository's overview), sent with every chunk", "",
             "Chunks:"]
    for chunk in plan.chunks[:MAX_LISTED]:
        shown = ", ".join(chunk.paths[:3]) + (f" and {len(chunk.paths) - 3} more" if len(chunk.paths) > 3 else "")
        lines.append(f"  {chunk.index:>4}  {chunk.tokens:>8,} tokens  {shown}")
    if len(plan.chunks) > MAX_LISTED:
        lines.append(f"  … and {len(plan.chunks) - MAX_LISTED} more (--format json lists every one)")
    lines.append("")
    if estimate is None:
        lines.append(f"estimated cost: unknown (no price for {model}: set REVIEWBOT_PRICES)")
    else:
        lines.append(f"estimated cost: ${estimate.cost_usd:.4f} ({estimate.prompt_tokens:,} prompt tokens, "
                     f"{estimate.cached_tokens:,} of them cached, {estimate.completion_tokens:,} completion tokens; "
                     "verifying findings comes on top)")
    return "\n".join(lines)
