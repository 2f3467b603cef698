"""`reviewbot eval --fixes`: each expected finding of a case fixed through the fix core on the case's own review
prompt, and counted at every stage: the edits apply, the change passes the core's checks (parses, scope, size, no
secret), the verifier accepts it, and a review of the fixed change no longer reports the finding."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from reviewbot.app.bigdiff import diff_from_files
from reviewbot.errors import ModelOutputError
from reviewbot.eval.candidates import posted
from reviewbot.eval.scoring import Judge
from reviewbot.eval.suite import Case, Expected
from reviewbot.fixes.declined import Declined
from reviewbot.fixes.edits import apply_edits
from reviewbot.fixes.fix_checks import check_change
from reviewbot.fixes.fix_turns import fix_message, verify_message
from reviewbot.fixes.patch import unified_diff
from reviewbot.fixes.target import FixTarget
from reviewbot.fixes.wire import FIX_FORMATS, VERDICT_FORMATS, parse_fix, parse_verdict
from reviewbot.inference.structured import StructuredReviewer
from reviewbot.inference.verify_request import StructuredVerifier
from reviewbot.model import Usage
from reviewbot.review.diff.newtext import head_text
from reviewbot.review.diff.parse import parse_diff
from reviewbot.review.engine import ReviewInput, prepare, run_review

STAGES = ("applied", "checked", "verified", "fixed")  # each a subset of the one before


@dataclass(frozen=True)
class FixOutcome:
    """One expected finding's fix: the last stage it reached ("" when the edits did not apply), and why it stopped."""

    case: str
    path: str
    line: int
    reached: str
    declined: str = ""


def head_files(case: Case) -> dict[str, str]:
    """The case's files after its change (base files the change leaves alone included)."""
    files = dict(case.base)
    for f in case.diff.files:
        if (text := head_text(f, case.base.get(f.path))) is not None:
            files[f.path] = text
        else:
            files.pop(f.path, None)
    return files


def expected_target(case: Case, want: Expected, files: Mapping[str, str]) -> FixTarget:
    """An expected finding as the fix core's target: its own words, and any file they name may change with it."""
    key = hashlib.sha256(f"{case.name}\x1f{want.path}\x1f{want.end}".encode()).hexdigest()[:16]
    also = tuple(p for p in sorted(files) if p != want.path and p in want.why)
    title = want.why.split(":")[0][:120] or f"{want.categories[0]} in {want.path}"
    return FixTarget(fingerprint=key, path=want.path, start=want.start, end=want.end, severity="major",
                     category=want.categories[0], title=title, body=want.why or title, also=also)


async def fix_expected(case: Case, inp: ReviewInput, want: Expected, reviewer: StructuredReviewer,
                       judge: Judge) -> tuple[FixOutcome, Usage]:
    """One finding's fix through every stage; the review of the fixed change uses the same engine and model."""
    files = head_files(case)
    target = expected_target(case, want, files)
    messages = prepare(inp).prompt.messages
    usage, reached = Usage(), ""
    try:
        head = {p: files[p] for p in target.paths if p in files}
        proposal, spent, _ = await reviewer.converse([*messages, fix_message([target], head)], inp.affinity,
                                                     parse_fix, FIX_FORMATS, what="fix")
        usage += spent
        change = apply_edits(head, proposal.edits)
        reached = "applied"
        check_change(change, target.paths)
        reached = "checked"
        verdict, spent, _ = await reviewer.converse([*messages, verify_message([target], unified_diff(change))],
                                                    inp.affinity, parse_verdict, VERDICT_FORMATS,
                                                    what="fix verification")
        usage += spent
        if not verdict.fixed:
            raise Declined("not-fixed", verdict.reason[:200])
        reached = "verified"
        fixed = {**files, **change.after}
        changed = sorted(p for p in set(case.base) | set(fixed) if case.base.get(p) != fixed.get(p))
        items = [{"filename": p, "status": "added" if p not in case.base else "removed" if p not in fixed
                  else "modified"} for p in changed]
        diff, _ = diff_from_files(items, {p: (case.base.get(p), fixed.get(p)) for p in changed})
        again = dataclasses.replace(inp, prompt=dataclasses.replace(inp.prompt, diff=parse_diff(diff)))
        result = await run_review(again, reviewer.fresh(), StructuredVerifier(reviewer.fresh()))
        usage += result.report.usage
        if any(judge(want, f) for f in posted(result, "nit")):
            raise Declined("still-reported")
        reached = "fixed"
    except Declined as declined:
        return FixOutcome(case.name, want.path, want.end, reached, declined.reason), usage
    except ModelOutputError as exc:
        return FixOutcome(case.name, want.path, want.end, reached, f"invalid-answer: {str(exc)[:100]}"), usage
    return FixOutcome(case.name, want.path, want.end, reached), usage


def fix_totals(outcomes: list[FixOutcome]) -> dict[str, object]:
    """How many findings reached each stage, and the share that reached the last."""
    total = len(outcomes)
    counts = {stage: sum(1 for o in outcomes if o.reached and STAGES.index(o.reached) >= i)
              for i, stage in enumerate(STAGES)}
    return {"findings": total, **counts, "fixed_share": round(counts["fixed"] / total, 3) if total else 0.0}
