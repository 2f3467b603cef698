"""A fix's two model turns, one way for pull requests and audits: the edits, applied and checked, then the verifier."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reviewbot.errors import ModelOutputError
from reviewbot.fixes.declined import Declined
from reviewbot.fixes.edits import Change, apply_edits
from reviewbot.fixes.fix_checks import check_change
from reviewbot.fixes.fix_turns import fix_message, verify_message
from reviewbot.fixes.patch import unified_diff
from reviewbot.fixes.target import FixTarget
from reviewbot.fixes.wire import FIX_FORMATS, VERDICT_FORMATS, parse_fix, parse_verdict


@dataclass(frozen=True)
class Checked:
    """A change that passed the checks and the verifier, with its diff and the model's explanation."""

    change: Change
    diff: str
    explanation: str


async def ask_fix(reviewer: Any, messages: list[dict[str, str]], affinity: str, targets: Sequence[FixTarget],
                  head: Mapping[str, str]) -> Checked:
    """Declined with the first check that fails: the model's edits on the caller's prefix (`messages`), applied
    exactly to `head` and checked, then a second request on the same prefix that must say the change fixes every
    finding. The model is asked again only while the checks before pass."""
    allowed = tuple(dict.fromkeys(p for t in targets for p in t.paths))
    try:
        proposal, _, _ = await reviewer.converse([*messages, fix_message(targets, head)], affinity, parse_fix,
                                                 FIX_FORMATS, what="fix")
    except ModelOutputError as exc:
        raise Declined("invalid-answer", str(exc)[:200]) from exc
    change = apply_edits(head, proposal.edits)
    check_change(change, allowed)
    diff = unified_diff(change)
    try:
        verdict, _, _ = await reviewer.converse([*messages, verify_message(targets, diff)], affinity,
                                                parse_verdict, VERDICT_FORMATS, what="fix verification")
    except ModelOutputError as exc:
        raise Declined("not-fixed", "the verifier's answer was not valid") from exc
    if not verdict.fixed:
        raise Declined("not-fixed", " ".join(verdict.reason.split())[:300])
    return Checked(change, diff, proposal.explanation)
