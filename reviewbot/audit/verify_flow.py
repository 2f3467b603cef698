"""One audit batch's verification with the code of each candidate's flow, then at most one follow-up with the code
the verifier named for the candidates it could not check; one whose code the tree does not have is published
unverified, never refuted for lack of code. `reviewbot audit` and the service's finishing job share it."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from reviewbot.audit.batches import batch_messages
from reviewbot.audit.contextblock import Block
from reviewbot.audit.flowcontext import FlowSource, asked_code, plan_flow, render_flow, with_callee_steps
from reviewbot.audit.service_record import CodeAsk, Outcome
from reviewbot.errors import ModelPermanent
from reviewbot.model import Usage
from reviewbot.review.findings.schema import Finding
from reviewbot.review.findings.verification import Checks, VerifyAnswer, apply_verdicts

Ask = Callable[[list[dict[str, str]], list[int]], Awaitable[VerifyAnswer]]  # (messages, candidate ids) -> verdicts


@dataclass(frozen=True)
class Checked:
    kept: list[Finding]
    checks: Checks
    usage: Usage
    asks: tuple[CodeAsk, ...] = ()


async def check_with_flow(ask: Ask, chunk: list[dict[str, str]], batch: Sequence[Finding],
                          source: FlowSource) -> Checked:
    """Verdicts for `batch` on its owner `chunk`'s request; a "needs_code" answer gets the code it names in one
    follow-up request for all such candidates, when the tree has it, else the candidate stands unverified."""
    flows = await asyncio.to_thread(source.locked, lambda: [plan_flow(f, source) for f in batch])
    findings = [with_callee_steps(f, flow) for f, flow in zip(batch, flows, strict=True)]
    answer = await ask(batch_messages(chunk, findings, source.read, [_text(f.blocks, source) for f in flows]),
                       list(range(1, len(findings) + 1)))
    final, usage = list(answer.verdicts), answer.usage
    lacking = [i for i, v in enumerate(final) if v.verdict == "needs_code"]
    more = await asyncio.to_thread(source.locked, lambda: {
        i: asked_code(final[i].needs, findings[i].path, source, flows[i].blocks) for i in lacking})
    again = [i for i in lacking if more[i]]
    outcome: dict[int, Outcome] = {i: "unverified" for i in lacking}
    if again:
        try:
            second = await ask(batch_messages(chunk, [findings[i] for i in again], source.read,
                                              [_text((*flows[i].blocks, *more[i]), source) for i in again]),
                               list(range(1, len(again) + 1)))
        except ModelPermanent as exc:  # the follow-up could not run: they stand, unverified
            usage = usage + exc.usage
        else:
            usage = usage + second.usage
            for i, verdict in zip(again, second.verdicts, strict=True):
                final[i] = verdict
                outcome[i] = "unverified" if verdict.verdict == "needs_code" else "more code"
    # A "needs_code" verdict left is kept, marked unverified (`apply_verdicts`), and counted here, not as unchecked.
    kept, checks = apply_verdicts(findings, [v.model_copy(update={"id": n}) for n, v in enumerate(final, 1)])
    asks = tuple(CodeAsk(findings[i].title, findings[i].path, findings[i].line, answer.verdicts[i].needs,
                         outcome[i]) for i in lacking)
    return Checked(kept, dataclasses.replace(checks, unchecked=()), usage, asks)


def _text(blocks: Sequence[Block], source: FlowSource) -> str:
    return render_flow(blocks, source.read)
