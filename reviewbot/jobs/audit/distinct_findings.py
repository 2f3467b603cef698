"""Candidates of all chunks → one per code fingerprint → each verified once, by the verification request on the
prompt of the chunk that found it first (its prefix is cached). A verification that cannot run keeps its
candidates, labelled unverified, as in reviews."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reviewbot.errors import ModelPermanent
from reviewbot.inference.allowance import Gate
from reviewbot.inference.verify_request import StructuredVerifier
from reviewbot.jobs.audit.chunk_input import audit_reviewer, chunk_input
from reviewbot.jobs.audit.job_ids import finish_job_id
from reviewbot.model import Usage
from reviewbot.repos.cache import DirSnapshot
from reviewbot.review.engine import prepare
from reviewbot.review.findings.fingerprints import code_key
from reviewbot.review.findings.schema import Finding
from reviewbot.review.findings.verification import BATCH, apply_verdicts, verification_messages

if TYPE_CHECKING:
    from reviewbot.jobs.deps import Deps


@dataclass
class Verified:
    kept: list[Finding] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    unchecked: int = 0
    usage: Usage = field(default_factory=Usage)


def finding_key(finding: Finding, read: Callable[[str], str | None]) -> str:
    """The code fingerprint: path, category and the normalised code of the lines it points at."""
    lines = (read(finding.path) or "").split("\n")
    code = lines[max(0, (finding.start_line or finding.line) - 1):finding.line]
    return code_key(finding.path, finding.category, code)


def distinct(done: dict[int, dict[str, Any]], read: Callable[[str], str | None],
             known: list[dict[str, Any]]) -> dict[int, list[Finding]]:
    """Each distinct candidate once, under the first chunk (in chunk order) that reported it; none that is
    `known` already (a finding carried forward from the branch's last audit)."""
    seen = {finding_key(Finding.model_validate(f), read) for f in known}
    owners: dict[int, list[Finding]] = {}
    for index in sorted(done):
        for raw in done[index]["findings"]:
            finding = Finding.model_validate(raw)
            key = finding_key(finding, read)
            if key not in seen:
                seen.add(key)
                owners.setdefault(index, []).append(finding)
    return owners


async def verify(deps: Deps, redis: Any, record: dict[str, Any], snapshot: DirSnapshot, gate: Gate | None,
                 owners: dict[int, list[Finding]]) -> Verified:
    """Every batch is asked at once (each one goes to the provider's queue); the first wait or transient failure
    is raised after all were submitted, and the next try replays what came back."""
    reviewer = audit_reviewer(deps, redis, finish_job_id(record["id"]), snapshot.root, gate)

    async def one(index: int, batch: list[Finding]) -> Verified:
        inp = chunk_input(deps, record, snapshot, index)
        messages = (await asyncio.to_thread(prepare, inp)).prompt.messages
        asked = verification_messages(messages, batch, inp.prompt.diff, snapshot.read)
        try:
            answer = await StructuredVerifier(reviewer.fresh()).verify(asked, list(range(1, len(batch) + 1)),
                                                                       inp.affinity)
        except ModelPermanent as exc:
            return Verified([f.model_copy(update={"unverified": True}) for f in batch], [], len(batch), exc.usage)
        kept, checks = apply_verdicts(batch, answer.verdicts)
        return Verified(kept, list(checks.dropped), 0, answer.usage)

    jobs = [one(index, found[i:i + BATCH]) for index, found in sorted(owners.items())
            for i in range(0, len(found), BATCH)]
    results = await asyncio.gather(*jobs, return_exceptions=True)
    if failure := next((r for r in results if isinstance(r, BaseException)), None):
        raise failure
    total = Verified()
    for result in results:
        assert isinstance(result, Verified)
        total.kept += result.kept
        total.dropped += result.dropped
        total.unchecked += result.unchecked
        total.usage = total.usage + result.usage
    return total
