"""Verification of an audit's distinct findings, pure: which chunk's cached conversation checks which findings,
in batches with stable keys (a resumed audit never pays for a batch twice), and the request each one sends."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reviewbot.audit.dedup import Distinct
from reviewbot.audit.verify_schema import AUDIT_INSTRUCTIONS
from reviewbot.review.diff.parse import ParsedDiff
from reviewbot.review.findings.precision import Precision
from reviewbot.review.findings.schema import Finding
from reviewbot.review.findings.verification import BATCH, needs_check, verification_messages

# Candidates per verification request in an audit: each request re-reads its owner chunk (cached, but billed), and
# a chunk is up to AUDIT_CHUNK_TOKENS of code, so a chunk's candidates are checked in one request where they fit.
AUDIT_BATCH = max(BATCH, 50)
NO_DIFF = ParsedDiff(files=())  # an audit has no diff: candidates are shown from the files themselves


@dataclass(frozen=True)
class Batch:
    owner: int  # the chunk whose conversation (already in the provider's cache) carries the request
    findings: tuple[Finding, ...]
    fingerprints: tuple[str, ...]

    @property
    def key(self) -> str:
        return hashlib.sha256("\x1f".join([str(self.owner), *self.fingerprints]).encode()).hexdigest()[:16]


def verification_batches(distinct: Sequence[Distinct], precision: Precision) -> tuple[list[Batch], list[Finding]]:
    """Batches of the findings the policy checks (an audit is a security review: all of them), grouped by
    owner chunk; and the findings kept without a check."""
    by_owner: dict[int, list[Distinct]] = {}
    kept: list[Finding] = []
    for d in distinct:
        if needs_check(d.finding, precision.policy, precision.threshold):
            by_owner.setdefault(d.owner, []).append(d)
        else:
            kept.append(d.finding)
    batches = []
    for owner in sorted(by_owner):
        items = by_owner[owner]
        for i in range(0, len(items), AUDIT_BATCH):
            part = items[i:i + AUDIT_BATCH]
            batches.append(Batch(owner, tuple(d.finding for d in part), tuple(d.fingerprint for d in part)))
    return batches, kept


def batch_messages(chunk_messages: list[dict[str, str]], findings: Sequence[Finding],
                   read: Callable[[str], str | None], flows: Sequence[str] = ()) -> list[dict[str, str]]:
    """The owner chunk's own messages, unchanged (the cached prefix), then the candidates with their code and,
    after it, each one's flow (`flowcontext`), with the audit's verdicts ("needs_code" among them)."""
    return verification_messages(chunk_messages, findings, NO_DIFF, read, instructions=AUDIT_INSTRUCTIONS,
                                 extras=flows)
