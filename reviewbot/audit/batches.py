"""Verification of an audit's distinct findings, pure: which chunk's cached conversation checks which findings,
in batches with stable keys (a resumed audit never pays for a batch twice), and the request each one sends."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reviewbot.audit.dedup import Distinct
from reviewbot.review.diff.parse import ParsedDiff
from reviewbot.review.findings.precision import Precision
from reviewbot.review.findings.schema import Finding
from reviewbot.review.findings.verification import BATCH, needs_check, verification_messages

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
        for i in range(0, len(items), BATCH):
            part = items[i:i + BATCH]
            batches.append(Batch(owner, tuple(d.finding for d in part), tuple(d.fingerprint for d in part)))
    return batches, kept


def batch_messages(chunk_messages: list[dict[str, str]], batch: Batch,
                   read: Callable[[str], str | None]) -> list[dict[str, str]]:
    """The owner chunk's own messages, unchanged (the cached prefix), then the candidates with their code."""
    return verification_messages(chunk_messages, batch.findings, NO_DIFF, read)
