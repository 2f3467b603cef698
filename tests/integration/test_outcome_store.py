"""Outcome records written by two jobs at once (a dismissal while the close job decides) lose neither write."""

from __future__ import annotations

import redis
from redis.asyncio import Redis

from reviewbot.outcomes.classify import decided
from reviewbot.outcomes.outcome_store import OutcomeStore
from reviewbot.outcomes.records import DECIDED_BEFORE_CLOSE, FindingRecord
from reviewbot.state.keys import outcomes_key

RECORDS = [FindingRecord(installation=1, repo="acme/app", pr=7, fingerprint=fp, category="bug", severity="major",
                         path="app/calc.py", line=n, posted_at=100.0) for n, fp in enumerate(("a" * 16, "b" * 16), 1)]


async def test_a_dismissal_written_while_the_close_job_decides_is_kept(redis_url: str) -> None:
    client = Redis.from_url(redis_url)
    other = redis.Redis.from_url(redis_url)  # the dismissal job, another connection
    try:
        store = OutcomeStore(client)
        await store.posted(RECORDS)
        reads: list[str] = []

        def at_close(record: FindingRecord) -> FindingRecord:
            if not reads:  # between the close job's read and its write, the dismissal lands
                dismissed = decided(RECORDS[0], "dismissed", "maintainer-mo", 150.0, "repository")
                other.hset(outcomes_key(1, "acme/app"), dismissed.field, dismissed.to_json())
            reads.append(record.fingerprint)
            return record if record.outcome in DECIDED_BEFORE_CLOSE else decided(record, "open_at_merge", "", 200.0)

        await store.update(1, "acme/app", [r.field for r in RECORDS], at_close)
        stored = {r.fingerprint: (r.outcome, r.by) for r in await store.of_pull(1, "acme/app", 7)}
        assert stored == {"a" * 16: ("dismissed", "maintainer-mo"), "b" * 16: ("open_at_merge", "")}
        assert len(reads) == 4  # read again after the other write: two records, twice
    finally:
        other.close()
        await client.aclose()
