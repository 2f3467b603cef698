"""An audit finding's fix planned and checked: the model's edits on the audit's cached prefix, applied to the audited
commit's files, the core's checks, the verifier, then the audit's own chunk request over the changed files, which
must no longer report the finding (nor a new critical or major one)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reviewbot.audit.answer_schema import AUDIT_FORMATS
from reviewbot.audit.chunkprompt import Prefix, audit_prefix, render_chunk
from reviewbot.audit.chunks import Chunk
from reviewbot.audit.fix_select import FixGroup, still_reported
from reviewbot.audit.service_record import AuditRecord
from reviewbot.fixes.declined import Declined
from reviewbot.fixes.edits import Change
from reviewbot.inference.allowance import Gate
from reviewbot.inference.memo import RedisMemo
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.jobs.audit.chunk_input import audit_affinity
from reviewbot.jobs.fix.fix_ask import ask_fix
from reviewbot.review.findings.fingerprints import normalize_title

if TYPE_CHECKING:
    from reviewbot.jobs.deps import Deps

BLOCKING = ("critical", "major")


@dataclass(frozen=True)
class AuditFixPlan:
    change: Change
    explanation: str


def plan_prefix(plan: dict[str, Any] | None) -> Prefix:
    """The audit's own prefix (its cached bytes), or, once the plan expired, the audit's prefix without overview."""
    if plan is not None:
        return Prefix(plan["prefix"]["system"], plan["prefix"]["head"])
    return audit_prefix("", tools=False)


async def plan_audit_fix(deps: Deps, redis: Any, record: AuditRecord, prefix: Prefix,
                         read: Callable[[str], str | None], group: FixGroup, scope: str,
                         gate: Gate) -> AuditFixPlan:
    """Declined with the first check that fails; the model is asked only while the checks before pass."""
    targets = group.targets
    allowed = tuple(dict.fromkeys(p for t in targets for p in t.paths))
    head = {p: text for p in allowed if (text := read(p)) is not None}
    messages = [{"role": "system", "content": prefix.system}, {"role": "user", "content": prefix.head}]
    affinity = audit_affinity(record)
    reviewer = deps.reviewer(scope, None, gate)
    checked = await ask_fix(reviewer, messages, affinity, targets, head)
    await _audit_again(deps, redis, prefix, checked.change, read, group, scope, affinity, gate)
    return AuditFixPlan(checked.change, checked.explanation)


async def _audit_again(deps: Deps, redis: Any, prefix: Prefix, change: Change, read: Callable[[str], str | None],
                       group: FixGroup, scope: str, affinity: str, gate: Gate) -> None:
    """The audit's chunk request over the changed files as the fix leaves them (an incremental audit of them)."""
    def after(path: str) -> str | None:
        return change.after[path] if path in change.after else read(path)

    messages = render_chunk(prefix, Chunk(0, change.paths, 0), 1, after, ())
    auditor = StructuredReviewer(deps.client, memo=RedisMemo(redis, scope), max_turns=deps.settings.max_tool_turns,
                                 token_budget=deps.settings.review_token_budget, gate=gate, formats=AUDIT_FORMATS)
    answer = await auditor.review(messages, affinity)
    found = [(f.path, f.cwe, f.title) for f in answer.output.findings if f.path in change.paths]
    if still_reported(group, found):
        raise Declined("still-reported")
    fixing = {normalize_title(f.title) for f in group.findings}
    new = [f.title for f in answer.output.findings
           if f.path in change.paths and f.severity in BLOCKING and normalize_title(f.title) not in fixing]
    if new:
        raise Declined("new-findings", "; ".join(" ".join(t.split())[:100] for t in new[:3]))
